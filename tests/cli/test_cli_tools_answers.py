"""`specbridge tools --config` shows exactly what a model is handed: `fields` where `answers.select` is on,
and then no `outputSchema`, in every export format."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from specbridge.cli import app
from specbridge.tools import APPROVAL_NOTE

DOCUMENT = """openapi: 3.1.0
info: {title: Shop, version: "1"}
servers: [{url: "https://api.example.com"}]
paths:
  /orders:
    get:
      operationId: listOrders
      responses:
        "200":
          description: A page
          content: {application/json: {schema: {type: object, properties: {data: {type: array}}}}}
  /orders/{id}:
    get:
      operationId: getOrder
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses:
        "200": {description: One, content: {application/json: {schema: {type: object}}}}
"""


def _run(tmp_path: Path, config: str, *args: str) -> object:
    spec = tmp_path / "shop.yaml"
    spec.write_text(DOCUMENT)
    (tmp_path / "specbridge.yaml").write_text(config)
    result = CliRunner().invoke(
        app, ["tools", str(spec), "--config", str(tmp_path / "specbridge.yaml"), *args]
    )
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.mark.parametrize("fmt", ["mcp", "anthropic", "openai"])
def test_a_tool_with_select_on_shows_fields_in_every_export(tmp_path: Path, fmt: str) -> None:
    config = "apis:\n  shop:\n    spec: ./shop.yaml\n    tools: {listOrders: {answers: {select: true}}}\n"
    found = _run(tmp_path, config, "--format", fmt)
    tools = found["tools"] if isinstance(found, dict) else found
    schemas = {
        (tool.get("name") or tool["function"]["name"]): (
            tool.get("inputSchema") or tool.get("input_schema") or tool["function"]["parameters"]
        )
        for tool in tools
    }
    assert schemas["listOrders"]["properties"]["fields"]["items"] == {"type": "string"}
    assert "fields" not in schemas["getOrder"]["properties"]
    if fmt == "mcp":
        by_name = {tool["name"]: tool for tool in tools}
        assert "outputSchema" not in by_name["listOrders"] and "outputSchema" in by_name["getOrder"]


def test_without_select_the_tools_are_as_converted(tmp_path: Path) -> None:
    found = _run(tmp_path, "apis:\n  shop:\n    spec: ./shop.yaml\n")
    assert all("fields" not in tool["inputSchema"].get("properties", {}) for tool in found["tools"])


@pytest.mark.parametrize("fmt", ["mcp", "anthropic", "openai"])
def test_a_tool_a_person_approves_ends_its_description_with_that_in_every_export(
    tmp_path: Path, fmt: str
) -> None:
    long = "Reads orders. " * 120  # past OpenAI's 1,024 characters: the sentence is kept whole
    config = (
        "apis:\n  shop:\n    spec: ./shop.yaml\n"
        f"    tools: {{getOrder: {{requires_approval: true}}, listOrders: {{description: '{long}'}}}}\n"
    )
    if fmt == "openai":
        config = config.replace(
            "listOrders: {description", "listOrders: {requires_approval: true, description"
        )
    found = _run(tmp_path, config, "--format", fmt)
    tools = found["tools"] if isinstance(found, dict) else found
    described = {
        (tool.get("name") or tool["function"]["name"]): (
            tool.get("description") or tool["function"]["description"]
        )
        for tool in tools
    }
    assert described["getOrder"].endswith(APPROVAL_NOTE)
    assert described["getOrder"].count(APPROVAL_NOTE) == 1
    if fmt == "openai":
        assert described["listOrders"].endswith(APPROVAL_NOTE) and len(described["listOrders"]) <= 1024
    else:
        assert APPROVAL_NOTE not in described["listOrders"]
