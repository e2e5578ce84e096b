"""What a model is handed: MCP `tools/list`, Anthropic tools, OpenAI function tools (optionally strict)."""

from __future__ import annotations

from typing import Any, Literal, get_args

from .._errors import ExportError
from ._model import Tool, ToolSet

Json = Any
ExportFormat = Literal["mcp", "anthropic", "openai"]
TOOL_SEARCH_TOOL = {"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"}

# OpenAI strict mode: the keywords it accepts; the rest are dropped (the gateway still checks them).
_STRICT_KEEP = frozenset(
    {
        "type", "properties", "required", "additionalProperties", "items", "enum", "const", "anyOf",
        "$ref", "$defs", "description", "title", "pattern", "format", "minimum", "maximum",
        "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems", "maxItems",
    }
)  # fmt: skip
_STRICT_BREAKING = frozenset(
    {"patternProperties", "not", "if", "then", "else", "dependentSchemas", "prefixItems"}
)
STRICT_MAX_DEPTH = 10


class StrictIncompatible(Exception):
    """A schema that OpenAI strict mode cannot express; `reason` says what and where."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def mcp_tool(tool: Tool) -> dict[str, Json]:
    entry: dict[str, Json] = {"name": tool.name}
    if tool.title:
        entry["title"] = tool.title
    entry["description"] = tool.description
    entry["inputSchema"] = tool.input_schema
    if tool.output_schema is not None:
        entry["outputSchema"] = tool.output_schema
    annotations: dict[str, Json] = {}
    if tool.title:
        annotations["title"] = tool.title
    annotations.update(
        readOnlyHint=tool.hints.read_only,
        destructiveHint=tool.hints.destructive,
        idempotentHint=tool.hints.idempotent,
        openWorldHint=tool.hints.open_world,
    )
    entry["annotations"] = annotations
    return entry


def export_mcp(toolset: ToolSet) -> dict[str, Json]:
    """A `tools/list` result."""
    return {"tools": [mcp_tool(tool) for tool in toolset.tools]}


def export_anthropic(toolset: ToolSet, *, defer_loading: bool = False) -> list[dict[str, Json]]:
    tools: list[dict[str, Json]] = []
    for tool in toolset.tools:
        entry: dict[str, Json] = {
            "name": tool.portable_name,
            "description": tool.description,
            "input_schema": tool.input_schema,
        }
        if defer_loading:
            entry["defer_loading"] = True
        tools.append(entry)
    # The search tool is never deferred, so at least one tool always stays loaded.
    return [dict(TOOL_SEARCH_TOOL), *tools] if defer_loading else tools


def export_openai(toolset: ToolSet, *, strict: bool = False) -> list[dict[str, Json]]:
    """Chat Completions function tools. With `strict`, each tool that strict mode can express gets
    `strict: true` and a strict schema; a tool it cannot express keeps its schema with `strict: false`."""
    result = []
    for tool in toolset.tools:
        function: dict[str, Json] = {"name": tool.portable_name, "description": tool.description}
        if strict:
            try:
                function["parameters"] = strict_schema(tool.input_schema)
                function["strict"] = True
            except StrictIncompatible:
                function["parameters"] = tool.input_schema
                function["strict"] = False
        else:
            function["parameters"] = tool.input_schema
        result.append({"type": "function", "function": function})
    return result


def export(toolset: ToolSet, fmt: ExportFormat, *, strict: bool = False, defer_loading: bool = False) -> Json:
    """`toolset` as `fmt` hands it to a model. An unknown format, or an option the format does not have,
    is an `ExportError` (a ValueError), never a quiet fallback to another format."""
    _check_export(fmt, strict=strict, defer_loading=defer_loading)
    if fmt == "mcp":
        return export_mcp(toolset)
    if fmt == "anthropic":
        return export_anthropic(toolset, defer_loading=defer_loading)
    return export_openai(toolset, strict=strict)


def _check_export(fmt: object, *, strict: bool, defer_loading: bool) -> None:
    formats = get_args(ExportFormat)
    if fmt not in formats:
        raise ExportError(f"{fmt!r} is not an export format; choose one of {', '.join(formats)}")
    if strict and fmt != "openai":
        raise ExportError(f"strict=True is OpenAI's strict mode; the {fmt} format has none (use 'openai')")
    if defer_loading and fmt != "anthropic":
        raise ExportError(
            f"defer_loading=True is Anthropic's deferred loading; the {fmt} format has none (use 'anthropic')"
        )


def strict_schema(schema: Json) -> Json:
    """The OpenAI strict-mode form of an input schema, or StrictIncompatible saying why not."""
    definitions = schema.get("$defs", {}) if isinstance(schema, dict) else {}
    root = _strict(schema, "", 0)
    if definitions:
        root["$defs"] = {name: _strict(value, f"/$defs/{name}", 1) for name, value in definitions.items()}
    return root


def _strict(node: Json, where: str, depth: int) -> Json:
    if depth > STRICT_MAX_DEPTH:
        raise StrictIncompatible(f"{where or '/'} is nested deeper than {STRICT_MAX_DEPTH} levels")
    if not isinstance(node, dict) or not node:
        raise StrictIncompatible(f"{where or '/'} accepts any value, which strict mode cannot express")
    breaking = _STRICT_BREAKING & node.keys()
    if breaking:
        raise StrictIncompatible(f"{where or '/'} uses {', '.join(sorted(breaking))}")
    node = _merge_all_of(node, where)
    out: dict[str, Json] = {
        key: value for key, value in node.items() if key in _STRICT_KEEP and key != "$defs"
    }
    if "oneOf" in node:
        out["anyOf"] = node["oneOf"]
    if "anyOf" in out:
        out["anyOf"] = [_strict(part, f"{where}/anyOf/{i}", depth) for i, part in enumerate(out["anyOf"])]
    if "$ref" in out:
        return {"$ref": out["$ref"], **({"description": out["description"]} if "description" in out else {})}
    kinds = out.get("type")
    kinds = [kinds] if isinstance(kinds, str) else kinds or []
    if "object" in kinds or "properties" in out:
        properties = out.get("properties")
        closed = node.get("additionalProperties") is False
        if not isinstance(properties, dict) or (not properties and not closed):
            raise StrictIncompatible(f"{where or '/'} is an object with free-form keys")
        required = set(out.get("required", []))
        out["properties"] = {
            name: _strict(value, f"{where}/properties/{name}", depth + 1)
            if name in required
            else _nullable(_strict(value, f"{where}/properties/{name}", depth + 1))
            for name, value in properties.items()
        }
        out["required"] = list(properties)
        out["additionalProperties"] = False
        if "type" not in out:
            out["type"] = "object"
    if "items" in out:
        out["items"] = _strict(out["items"], f"{where}/items", depth + 1)
    elif "array" in kinds:
        raise StrictIncompatible(f"{where or '/'} is an array with no item schema")
    if not kinds and not any(key in out for key in ("anyOf", "enum", "const", "properties")):
        raise StrictIncompatible(f"{where or '/'} has no type")
    return out


def _merge_all_of(node: dict[str, Json], where: str) -> dict[str, Json]:
    parts = node.get("allOf")
    if not isinstance(parts, list):
        return node
    merged: dict[str, Json] = {key: value for key, value in node.items() if key != "allOf"}
    for part in parts:
        if not isinstance(part, dict) or "$ref" in part or "allOf" in part:
            raise StrictIncompatible(f"{where or '/'} combines schemas with allOf")
        for key, value in part.items():
            if key == "properties":
                merged["properties"] = {**merged.get("properties", {}), **value}
            elif key == "required":
                merged["required"] = list(dict.fromkeys([*merged.get("required", []), *value]))
            elif key not in merged:
                merged[key] = value
    return merged


def _nullable(schema: Json) -> Json:
    kinds = schema.get("type")
    if isinstance(kinds, str):
        result = {**schema, "type": [kinds, "null"]} if kinds != "null" else schema
    elif isinstance(kinds, list):
        result = {**schema, "type": [*kinds, "null"]} if "null" not in kinds else schema
    elif "anyOf" in schema:
        parts = schema["anyOf"]
        return schema if {"type": "null"} in parts else {**schema, "anyOf": [*parts, {"type": "null"}]}
    else:
        return {"anyOf": [schema, {"type": "null"}]}
    if isinstance(result.get("enum"), list) and None not in result["enum"]:
        result = {**result, "enum": [*result["enum"], None]}
    return result
