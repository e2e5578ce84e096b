"""Small builders for conversion tests: a document from YAML text, its tools, and strict-mode checks."""

from __future__ import annotations

import textwrap
from typing import Any

import jsonschema_rs

from specbridge.document import ApiDocument, parse_document
from specbridge.tools import ConvertOptions, Tool, ToolSet, convert

HEADER = "openapi: 3.1.0\ninfo: {title: Test, version: '1'}\nservers: [{url: 'https://api.example.com'}]\n"

# What OpenAI strict mode accepts in a schema (structured outputs' supported subset).
STRICT_KEYWORDS = frozenset(
    {
        "type", "properties", "required", "additionalProperties", "items", "enum", "const", "anyOf",
        "$ref", "$defs", "description", "title", "pattern", "format", "minimum", "maximum",
        "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems", "maxItems",
    }
)  # fmt: skip


def document(body: str, *, header: str = HEADER) -> ApiDocument:
    return parse_document(header + textwrap.dedent(body))


def toolset(body: str, options: ConvertOptions | None = None, *, header: str = HEADER) -> ToolSet:
    return convert(document(body, header=header), options)


def only_tool(body: str, options: ConvertOptions | None = None) -> Tool:
    tools = toolset(body, options).tools
    assert len(tools) == 1, [tool.name for tool in tools]
    return tools[0]


def is_valid_2020_12(schema: Any) -> bool:
    return bool(jsonschema_rs.meta.is_valid(schema))


def strict_violations(schema: Any, where: str = "") -> list[str]:
    """Every place a schema breaks OpenAI strict mode's rules (empty when it obeys them)."""
    problems: list[str] = []
    if where == "" and (not isinstance(schema, dict) or schema.get("type") != "object"):
        return ["/ is not an object schema"]
    if not isinstance(schema, dict):
        return [f"{where or '/'} is not a schema object"]
    unknown = set(schema) - STRICT_KEYWORDS
    if unknown:
        problems.append(f"{where or '/'} uses {sorted(unknown)}")
    kinds = schema.get("type")
    kinds = [kinds] if isinstance(kinds, str) else kinds or []
    if "$ref" in schema:
        ref = schema["$ref"]
        if not isinstance(ref, str) or not ref.startswith("#/$defs/"):
            problems.append(f"{where or '/'} refers outside $defs")
    if "object" in kinds or "properties" in schema:
        properties = schema.get("properties")
        if schema.get("additionalProperties") is not False:
            problems.append(f"{where or '/'} lacks additionalProperties: false")
        if not isinstance(properties, dict) or sorted(schema.get("required", [])) != sorted(properties):
            problems.append(f"{where or '/'} does not require every property")
        for name, value in (properties or {}).items():
            problems += strict_violations(value, f"{where}/properties/{name}")
    if "items" in schema:
        problems += strict_violations(schema["items"], f"{where}/items")
    for index, part in enumerate(schema.get("anyOf", [])):
        problems += strict_violations(part, f"{where}/anyOf/{index}")
    for name, value in schema.get("$defs", {}).items():
        problems += strict_violations(value, f"{where}/$defs/{name}")
    return problems
