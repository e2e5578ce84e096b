"""`specbridge tools --code-mode`: the two tools of code mode in each format, with their token count
against the API's tools on stderr; the limits the execute tool tells are the config API's."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from specbridge.cli import app
from specbridge.cli._demo import example_spec_path


@pytest.mark.parametrize(("fmt", "name_of"), [("mcp", "name"), ("anthropic", "name"), ("openai", "function")])
def test_code_mode_prints_search_and_execute_and_their_tokens(fmt: str, name_of: str) -> None:
    result = CliRunner().invoke(app, ["tools", str(example_spec_path()), "--code-mode", "--format", fmt])
    assert result.exit_code == 0, result.output
    printed = json.loads(result.stdout)
    tools = printed["tools"] if fmt == "mcp" else printed
    names = [tool["name"] if name_of == "name" else tool["function"]["name"] for tool in tools]
    assert names == ["search", "execute"]
    said = re.search(
        r"code mode: 2 tools, about ([\d,]+) tokens .* 9 operations as tools: about ([\d,]+) tokens",
        result.stderr,
    )
    assert said is not None, result.stderr
    assert int(said.group(1).replace(",", "")) < int(said.group(2).replace(",", ""))


def test_openai_strict_code_mode_tools_are_strict_schemas() -> None:
    result = CliRunner().invoke(
        app, ["tools", str(example_spec_path()), "--code-mode", "--format", "openai", "--strict"]
    )
    assert result.exit_code == 0, result.output
    for tool in json.loads(result.stdout):
        parameters = tool["function"]["parameters"]
        assert tool["function"]["strict"] is True and parameters["additionalProperties"] is False
        assert sorted(parameters["required"]) == sorted(parameters["properties"])


def test_the_execute_tool_tells_the_config_apis_limits(tmp_path: Path) -> None:
    (tmp_path / "shop.yaml").write_text(
        Path(example_spec_path()).read_text(encoding="utf-8"), encoding="utf-8"
    )
    (tmp_path / "specbridge.yaml").write_text(
        "apis:\n  shop: {spec: ./shop.yaml, code_mode: {calls: 7, time: 3s}}\n", encoding="utf-8"
    )
    result = CliRunner().invoke(app, ["tools", "--config", str(tmp_path / "specbridge.yaml"), "--code-mode"])
    assert result.exit_code == 0, result.output
    execute = json.loads(result.stdout)["tools"][1]
    assert "Limits: 3 s of running, 7 calls per script." in execute["description"]


def test_code_mode_with_defer_loading_is_a_usage_error() -> None:
    result = CliRunner().invoke(
        app, ["tools", str(example_spec_path()), "--code-mode", "--format", "anthropic", "--defer-loading"]
    )
    assert result.exit_code == 2 and "--defer-loading" in result.output
