"""`apis.<api>.tools.<name>` must name a tool of the API: a typo is an error naming the closest tool."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from specbridge import ConfigError, ErrorCode
from specbridge.cli import app
from specbridge.config import ApiConfig, ToolConfig, check_tool_names, load_config
from specbridge.document import parse_document
from specbridge.gateway import Gateway
from specbridge.tools import convert

SPEC = """\
openapi: 3.1.0
info: {title: Orders, version: '1'}
paths:
  /orders/{id}:
    delete: {operationId: deleteOrder, parameters: [{name: id, in: path, required: true, schema: {type: string}}], responses: {'204': {description: gone}}}
    get: {operationId: getOrder, parameters: [{name: id, in: path, required: true, schema: {type: string}}], responses: {'200': {description: ok}}}
  /old:
    get: {operationId: oldThing, deprecated: true, responses: {'200': {description: ok}}}
"""


def api(*names: str, disabled: str = "") -> ApiConfig:
    tools = {name: ToolConfig(requires_approval=True) for name in names}
    if disabled:
        tools[disabled] = ToolConfig(disabled=True)
    return ApiConfig(name="orders", spec="orders.yaml", tools=tools, source="specbridge.yaml")


def check(config: ApiConfig) -> None:
    check_tool_names(config, convert(parse_document(SPEC, source="orders.yaml"), config.convert_options()))


def test_a_misspelled_tool_name_is_an_error_naming_the_closest_tool() -> None:
    with pytest.raises(ConfigError) as caught:
        check(api("deleteOrdr"))
    assert caught.value.code is ErrorCode.CONFIG_INVALID
    assert caught.value.key == "apis.orders.tools.deleteOrdr"
    assert "did you mean `deleteOrder`?" in str(caught.value)
    assert str(caught.value).startswith("specbridge.yaml: apis.orders.tools.deleteOrdr: names no tool")


def test_a_name_like_no_tool_says_where_to_find_the_names() -> None:
    with pytest.raises(ConfigError, match="specbridge tools"):
        check(api("somethingElseEntirely"))


def test_disabled_tools_and_left_out_deprecated_operations_are_real_names() -> None:
    check(api("getOrder", "oldThing", disabled="deleteOrder"))


def test_without_settings_for_tools_there_is_nothing_to_check() -> None:
    toolset = convert(parse_document(SPEC, source="orders.yaml"))
    assert check_tool_names(None, toolset) is toolset
    assert check_tool_names(api(), toolset) is toolset


@pytest.fixture
def config_with_typo(tmp_path: Path) -> Path:
    (tmp_path / "orders.yaml").write_text(SPEC, encoding="utf-8")
    path = tmp_path / "specbridge.yaml"
    path.write_text(
        "apis:\n  orders:\n    spec: ./orders.yaml\n    tools:\n      deleteOrdr: {requires_approval: true}\n",
        encoding="utf-8",
    )
    return path


async def test_the_gateway_refuses_to_start_with_a_misspelled_tool_name(config_with_typo: Path) -> None:
    gateway = Gateway(load_config(config_with_typo), config_path=str(config_with_typo))
    try:
        with pytest.raises(ConfigError, match="deleteOrder"):
            await gateway.start()
    finally:
        await gateway.aclose()


@pytest.mark.parametrize("command", [["tools"], ["lint"]])
def test_the_tools_and_lint_commands_report_a_misspelled_tool_name(
    config_with_typo: Path, command: list[str]
) -> None:
    spec = str(config_with_typo.parent / "orders.yaml")
    result = CliRunner().invoke(app, [*command, spec, "--config", str(config_with_typo)])
    assert result.exit_code == 3, result.output
    assert "config-invalid" in result.output
    assert "did you mean `deleteOrder`?" in result.output
