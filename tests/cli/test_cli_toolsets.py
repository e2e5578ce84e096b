"""`specbridge tools` and `lint` for a toolset of the config (`--api TOOLSET`)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from specbridge.cli import app
from tests.support.movies import MOVIES

SHOP = """\
openapi: 3.1.0
info: {title: Shop, version: '1'}
paths:
  /orders/{orderId}:
    delete:
      operationId: cancelOrder
      summary: Cancel an order that was not sent yet
      parameters: [{name: orderId, in: path, required: true, schema: {type: string}}]
      responses: {'204': {description: cancelled}}
"""


def config(tmp_path: Path, tools: str) -> str:
    (tmp_path / "movies.yaml").write_text(MOVIES)
    (tmp_path / "shop.yaml").write_text(SHOP)
    path = tmp_path / "specbridge.yaml"
    path.write_text(
        "apis:\n"
        "  movies: {spec: ./movies.yaml, base_url: 'https://movies.example.com'}\n"
        "  shop:\n"
        "    spec: ./shop.yaml\n"
        "    base_url: 'https://shop.example.com'\n"
        "    tools: {cancelOrder: {requires_approval: true}}\n"
        f"toolsets:\n  helper:\n    tools:\n{tools}"
    )
    return str(path)


TOOLS = """\
      - {api: movies, tool: movie_credits, name: credits, description: Who made a movie.}
      - {api: movies, tool: movie_top_rated, name: best}
      - {api: shop, tool: cancelOrder, name: cancel}
"""


def test_tools_exports_a_toolset_as_it_serves_it(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["tools", "--config", config(tmp_path, TOOLS), "--api", "helper"])
    assert result.exit_code == 0, result.output
    tools = {tool["name"]: tool for tool in json.loads(result.stdout)["tools"]}
    assert list(tools) == ["credits", "best", "cancel"]
    assert tools["credits"]["description"] == "Who made a movie.\n\n`movie_id`: from `best` (`results[].id`)."
    assert "A person approves each call" in tools["cancel"]["description"]  # the shop's rule, kept


def test_a_tool_its_api_does_not_serve_is_a_config_error_naming_the_key(tmp_path: Path) -> None:
    path = config(tmp_path, "      - {api: movies, tool: movie_credit}\n")
    result = CliRunner().invoke(app, ["tools", "--config", path, "--api", "helper"])
    assert result.exit_code == 3
    assert "error [config-invalid]" in result.stderr and "toolsets.helper.tools[0].tool" in result.stderr
    assert "did you mean `movie_credits`?" in result.stderr


def test_lint_of_a_toolset_names_its_tools_and_an_id_nothing_in_it_produces(tmp_path: Path) -> None:
    tools = (
        "      - {api: movies, tool: movie_credits, name: credits}\n      - {api: shop, tool: cancelOrder}\n"
    )
    result = CliRunner().invoke(
        app, ["lint", "--config", config(tmp_path, tools), "--api", "helper", "--format", "json"]
    )
    reports = json.loads(result.stdout)
    findings = [finding for report in reports for finding in report["findings"]]
    assert {finding["tool"] for finding in findings} - {None} <= {
        "credits",
        "cancelOrder",
    }  # None: the document
    missing = [(f["tool"], f["argument"]) for f in findings if f["rule"] == "id-source-missing"]
    assert ("credits", "movie_id") in missing  # its producers are not in the toolset


def test_tools_code_mode_prints_a_toolsets_two_tools_with_its_own_limits(tmp_path: Path) -> None:
    path = config(tmp_path, TOOLS + "    code_mode: {calls: 9}\n")
    result = CliRunner().invoke(app, ["tools", "--config", path, "--api", "helper", "--code-mode"])
    assert result.exit_code == 0, result.output
    search, execute = json.loads(result.stdout)["tools"]
    assert search["description"].startswith("helper has 3 operations, each a Python function")
    assert "9 calls per script" in execute["description"]
    assert "code mode: 2 tools" in result.stderr and "3 operations as tools" in result.stderr


def test_lint_of_a_toolset_in_code_mode_does_not_advise_on_its_catalogue_size(tmp_path: Path) -> None:
    many = "".join(
        f"  /things{n}:\n    get:\n      operationId: listThings{n}\n      summary: List the things of kind {n}\n"
        f"      responses: {{'200': {{description: the things}}}}\n"
        for n in range(45)
    )
    (tmp_path / "many.yaml").write_text(
        f"openapi: 3.1.0\ninfo: {{title: Many, version: '1'}}\npaths:\n{many}"
    )
    picks = "".join(f"      - {{api: many, tool: listThings{n}}}\n" for n in range(45))
    rules: dict[str, set[str]] = {}
    for mode in ("off", "on"):
        path = tmp_path / f"{mode}.yaml"
        path.write_text(
            "apis:\n  many: {spec: ./many.yaml, base_url: 'https://many.example.com', search: on}\n"
            f"toolsets:\n  all:\n    code_mode: {mode}\n    tools:\n{picks}"
        )
        result = CliRunner().invoke(app, ["lint", "--config", str(path), "--api", "all", "--format", "json"])
        report = json.loads(result.stdout)  # one API: one report
        rules[mode] = {finding["rule"] for finding in report["findings"]}
    assert "catalogue-size" in rules["off"]  # served as 45 tools: the toolset's mode, not its API's
    assert "catalogue-size" not in rules["on"]
