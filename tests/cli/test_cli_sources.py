"""What `lint` and `tools` read (cli/_sources.py): SPEC as a file, an http(s) URL or `-` for stdin, or
the APIs of `--config FILE [--api NAME]` with no SPEC at all: documents and config operations alike."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from specbridge.cli import app
from specbridge.cli._app import EXIT_OK, EXIT_UNREADABLE, EXIT_USAGE
from tests.support.upstream import Upstream, text_response

DOCUMENT = """\
openapi: 3.1.0
info: {title: Shop, version: '1'}
servers: [{url: 'https://shop.example.com/api'}]
paths:
  /orders/{id}:
    get:
      operationId: getOrder
      summary: Get one order by its id.
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses: {'200': {description: The order}}
"""


def config(tmp_path: Path, extra: str = "") -> Path:
    (tmp_path / "shop.yaml").write_text(DOCUMENT, encoding="utf-8")
    path = tmp_path / "specbridge.yaml"
    path.write_text(
        f"""\
apis:
  shop:
    spec: ./shop.yaml
    operations:
      refund_order:
        method: POST
        path: /orders/{{id}}/refund
        description: Refunds an order; ask the customer first.
        request: {{type: object, required: [amount], properties: {{amount: {{type: number}}}}}}
        requires_approval: true
  weather:
    operations:
      current_weather:
        method: GET
        url: https://api.open-meteo.com/v1/forecast
        description: Current weather for a latitude and longitude.
        parameters: {{query: [{{name: latitude, type: number, required: true}}]}}
{extra}""",
        encoding="utf-8",
    )
    return path


def tool_names(output: str) -> list[str]:
    return [tool["name"] for tool in json.loads(output)["tools"]]


def test_tools_with_a_config_and_no_spec_lists_the_named_api_s_document_and_operations(
    tmp_path: Path,
) -> None:
    path = config(tmp_path)
    shop = CliRunner().invoke(app, ["tools", "--config", str(path), "--api", "shop"])
    weather = CliRunner().invoke(app, ["tools", "--config", str(path), "--api", "weather"])
    several = CliRunner().invoke(app, ["tools", "--config", str(path)])
    assert shop.exit_code == EXIT_OK and sorted(tool_names(shop.output)) == ["getOrder", "refund_order"]
    assert weather.exit_code == EXIT_OK and tool_names(weather.output) == ["current_weather"]
    assert several.exit_code == EXIT_UNREADABLE and "name one with --api" in several.output


def test_tools_with_neither_spec_nor_config_says_what_to_give() -> None:
    result = CliRunner().invoke(app, ["tools"])
    assert result.exit_code == EXIT_USAGE and "give SPEC" in result.output


def test_lint_with_a_config_and_no_spec_checks_every_api_of_it(tmp_path: Path) -> None:
    path = config(tmp_path)
    result = CliRunner().invoke(app, ["lint", "--config", str(path), "--format", "json"])
    assert result.exit_code == EXIT_OK, result.output
    reports = {Path(report["source"].split(" ")[0]).name: report for report in json.loads(result.output)}
    assert reports["shop.yaml"]["tools"] == 2  # the document's operation and the config's beside it
    weather = reports["specbridge.yaml"]
    assert weather["source"].endswith("(apis.weather.operations)") and weather["tools"] == 1


def test_a_spec_the_config_serves_gets_its_operations_too(tmp_path: Path) -> None:
    path = config(tmp_path)
    result = CliRunner().invoke(app, ["tools", str(tmp_path / "shop.yaml"), "--config", str(path)])
    assert sorted(tool_names(result.output)) == ["getOrder", "refund_order"]


def test_tools_and_lint_read_a_document_at_a_url_under_the_config_api_s_egress_rules(
    tmp_path: Path, upstream: Upstream
) -> None:
    upstream.route("/openapi.yaml", text_response(DOCUMENT, content_type="application/yaml"))
    url = f"{upstream.url}/openapi.yaml"
    path = tmp_path / "specbridge.yaml"
    path.write_text(f"apis:\n  remote:\n    spec: {url}\n    egress: {{allow: ['{upstream.address}']}}\n")
    listed = CliRunner().invoke(app, ["tools", url, "--config", str(path)])
    linted = CliRunner().invoke(app, ["lint", "--config", str(path)])
    refused = CliRunner().invoke(app, ["tools", url])  # no config: public addresses only
    assert listed.exit_code == EXIT_OK and tool_names(listed.output) == ["getOrder"]
    assert linted.exit_code == EXIT_OK and url in linted.output
    assert refused.exit_code == EXIT_UNREADABLE and "[egress-refused]" in refused.output
    upstream.route("/openapi.yaml", text_response("gone", status=410))
    gone = CliRunner().invoke(app, ["lint", url, "--config", str(path)])
    assert (
        gone.exit_code == EXIT_UNREADABLE and "[document-not-found]" in gone.output and "410" in gone.output
    )


def test_a_dash_reads_the_document_from_stdin() -> None:
    command = [sys.executable, "-m", "specbridge", "tools", "-", "--format", "anthropic"]
    done = subprocess.run(command, input=DOCUMENT, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == EXIT_OK, done.stderr
    assert [tool["name"] for tool in json.loads(done.stdout)] == ["getOrder"]
    linted = subprocess.run(
        [sys.executable, "-m", "specbridge", "lint", "-"],
        input="not: [a document",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert linted.returncode == EXIT_UNREADABLE and "<stdin>" in linted.stderr
