"""Exports: MCP tools/list, Anthropic tools (deferred loading), OpenAI function tools (strict mode)."""

from __future__ import annotations

import json
from importlib.resources import files

import pytest
from click.testing import CliRunner

from specbridge.cli import app
from specbridge.document import parse_document
from specbridge.tools import (
    StrictIncompatible,
    convert,
    export,
    export_anthropic,
    export_mcp,
    export_openai,
    strict_schema,
)
from specbridge.tools._export import export_openai as documented_export_openai
from tests.support.openapi import is_valid_2020_12, strict_violations, toolset

SHOP = files("specbridge") / "examples" / "shop.openapi.yaml"

MIXED = """
paths:
  /orders/{id}:
    put:
      operationId: orders.replace
      summary: Replace an order.
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
        - {name: note, in: query, schema: {type: string}}
      requestBody:
        content:
          application/json:
            schema:
              type: object
              required: [items]
              properties:
                items: {type: array, items: {$ref: '#/components/schemas/Item'}}
                gift: {type: object, properties: {message: {type: string}}}
      responses:
        '200':
          description: The order.
          content: {application/json: {schema: {type: object, properties: {id: {type: string}}}}}
  /free:
    post:
      operationId: freeForm
      requestBody:
        content:
          application/json:
            schema: {type: object, properties: {meta: {type: object, additionalProperties: {type: string}}}}
      responses: {'204': {description: ok}}
components:
  schemas:
    Item:
      type: object
      properties:
        sku: {type: string}
        parts: {type: array, items: {$ref: '#/components/schemas/Item'}}
"""


def test_the_mcp_export_is_a_tools_list_result_with_every_hint_set() -> None:
    result = export_mcp(toolset(MIXED))
    first = result["tools"][0]
    assert list(result) == ["tools"]
    assert first["name"] == "orders.replace"
    assert first["title"] == "Replace an order"
    assert set(first) == {"name", "title", "description", "inputSchema", "outputSchema", "annotations"}
    assert first["annotations"] == {
        "title": "Replace an order",
        "readOnlyHint": False,
        "destructiveHint": True,
        "idempotentHint": True,
        "openWorldHint": True,
    }
    assert "outputSchema" not in result["tools"][1]


def test_the_anthropic_export_uses_portable_names_and_input_schema() -> None:
    tools = export_anthropic(toolset(MIXED))
    assert [set(tool) for tool in tools] == [{"name", "description", "input_schema"}] * 2
    assert tools[0]["name"] == "orders_replace"


def test_deferred_loading_defers_every_tool_and_adds_a_search_tool_that_is_not_deferred() -> None:
    tools = export_anthropic(toolset(MIXED), defer_loading=True)
    search = [tool for tool in tools if tool["name"] == "tool_search_tool_bm25"]
    assert len(search) == 1
    assert "defer_loading" not in search[0]
    assert search[0]["type"].startswith("tool_search_tool_bm25")
    assert all(tool["defer_loading"] is True for tool in tools if tool is not search[0])
    assert len(tools) == 3


def test_the_openai_export_is_function_tools() -> None:
    tools = export_openai(toolset(MIXED))
    assert tools[0]["type"] == "function"
    assert tools[0]["function"]["name"] == "orders_replace"
    assert "strict" not in tools[0]["function"]


LONG = (
    "paths:\n  /reports:\n    post:\n      operationId: makeReport\n      summary: Make a report.\n"
    "      description: |\n"
    + "".join(
        f"        Sentence number {n} of a long explanation of what a report holds.\n" for n in range(90)
    )
    + "      responses:\n        '201': {description: Made}\n        '422': {description: Bad}\n"
)


def test_openai_gets_descriptions_within_the_1024_characters_it_accepts_the_others_whole() -> None:
    tools = toolset(LONG)
    [description] = [tool["function"]["description"] for tool in export_openai(tools)]
    assert len(tools.tools[0].description) > 5000
    assert len(description) <= 1024
    assert description.startswith("Make a report.\n\nSentence number 0 of")
    assert description.endswith(
        "of a long explanation of what a report holds.…\n\nReturns 201: Made. Errors: 422."
    )
    assert export_anthropic(tools)[0]["description"] == tools.tools[0].description
    assert export_mcp(tools)["tools"][0]["description"] == tools.tools[0].description


def test_a_long_description_from_the_config_is_cut_at_a_sentence_for_openai() -> None:
    from specbridge.tools import ConvertOptions, ToolOverride

    mine = " ".join(f"Our sentence {n} about reports." for n in range(100))
    tools = toolset(LONG, ConvertOptions(overrides={"makeReport": ToolOverride(description=mine)}))
    [description] = [tool["function"]["description"] for tool in export_openai(tools)]
    assert len(description) <= 1024
    assert description.endswith("about reports.…")


def test_strict_mode_closes_every_object_requires_every_property_and_makes_optional_ones_nullable() -> None:
    tools = export_openai(toolset(MIXED), strict=True)
    function = tools[0]["function"]
    parameters = function["parameters"]
    assert function["strict"] is True
    assert strict_violations(parameters) == []
    assert parameters["required"] == ["id", "note", "items", "gift"]
    assert parameters["properties"]["note"]["type"] == ["string", "null"]
    assert parameters["properties"]["id"]["type"] == "string"
    gift = parameters["properties"]["gift"]
    assert gift["type"] == ["object", "null"]
    assert gift["additionalProperties"] is False
    assert gift["required"] == ["message"]
    assert parameters["$defs"]["Item"]["additionalProperties"] is False
    assert is_valid_2020_12(parameters)


def test_a_tool_strict_mode_cannot_express_is_exported_with_strict_false_and_its_own_schema() -> None:
    tool_set = toolset(MIXED)
    function = export_openai(tool_set, strict=True)[1]["function"]
    assert function["strict"] is False
    assert function["parameters"] == tool_set.tools[1].input_schema


def test_the_strict_false_fallback_is_documented() -> None:
    assert "strict: false" in (documented_export_openai.__doc__ or "")


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"a": {}}},
        {"type": "object", "properties": {"a": {"type": "object"}}},
        {"type": "object", "properties": {"a": {"type": "string", "not": {"const": "x"}}}},
        {"type": "object", "properties": {"a": {"type": "array"}}},
    ],
)
def test_strict_schema_refuses_what_strict_mode_cannot_express(schema: dict[str, object]) -> None:
    with pytest.raises(StrictIncompatible):
        strict_schema(schema)


def test_strict_schema_turns_one_of_into_any_of_and_merges_all_of() -> None:
    result = strict_schema(
        {
            "type": "object",
            "properties": {
                "a": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
                "b": {
                    "allOf": [{"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]}]
                },
            },
            "required": ["a", "b"],
        }
    )
    assert result["properties"]["a"] == {"anyOf": [{"type": "string"}, {"type": "integer"}]}
    assert result["properties"]["b"]["properties"] == {"x": {"type": "string"}}
    assert strict_violations(result) == []


def test_export_dispatches_by_format() -> None:
    tool_set = toolset(MIXED)
    assert export(tool_set, "mcp") == export_mcp(tool_set)
    assert export(tool_set, "anthropic", defer_loading=True) == export_anthropic(tool_set, defer_loading=True)
    assert export(tool_set, "openai", strict=True) == export_openai(tool_set, strict=True)


def test_the_example_shop_converts_into_valid_tools() -> None:
    tool_set = convert(parse_document(SHOP.read_text(encoding="utf-8")))
    assert tool_set.tools
    for tool in tool_set.tools:
        assert is_valid_2020_12(tool.input_schema)
    for entry in export_openai(tool_set, strict=True):
        if entry["function"]["strict"]:
            assert strict_violations(entry["function"]["parameters"]) == []


class TestCommandLine:
    @pytest.mark.parametrize(
        "args", [(), ("--format", "anthropic", "--defer-loading"), ("--format", "openai", "--strict")]
    )
    def test_the_tools_command_prints_json(self, args: tuple[str, ...]) -> None:
        result = CliRunner().invoke(app, ["tools", str(SHOP), *args])
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout)

    def test_strict_without_openai_is_a_usage_error(self) -> None:
        result = CliRunner().invoke(app, ["tools", str(SHOP), "--strict"])
        assert result.exit_code == 2
        assert "Traceback" not in result.output


def test_a_tool_without_arguments_is_strict_compatible_as_a_closed_empty_object() -> None:
    schema = {"type": "object", "properties": {}, "additionalProperties": False}
    assert strict_schema(schema) == {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": False,
    }
