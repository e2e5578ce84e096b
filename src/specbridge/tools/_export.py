"""What a model is handed: MCP `tools/list`, Anthropic tools, OpenAI function tools (optionally strict)."""

from __future__ import annotations

from typing import Any, Literal, get_args

from .._errors import ExportError
from ._describe import APPROVAL_NOTE, describe, shorten_text
from ._model import Tool, ToolSet
from ._strict import StrictIncompatible, strict_schema

Json = Any
ExportFormat = Literal["mcp", "anthropic", "openai"]
TOOL_SEARCH_TOOL = {"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"}
OPENAI_DESCRIPTION_MAX = 1024


def mcp_tool(tool: Tool) -> dict[str, Json]:
    entry: dict[str, Json] = {"name": tool.name}
    if tool.title:
        entry["title"] = tool.title
    entry["description"] = tool.description
    entry["inputSchema"] = tool.input_schema
    if tool.output_schema is not None:
        entry["outputSchema"] = tool.output_schema
    if tool.icons:
        entry["icons"] = [dict(icon) for icon in tool.icons]
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
        function: dict[str, Json] = {"name": tool.portable_name, "description": openai_description(tool)}
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


def openai_description(tool: Tool) -> str:
    """The tool's description within the 1,024 characters OpenAI accepts (a longer one fails the whole
    request with `string_above_max_length`): the document's own description is what gets shortened."""
    if len(tool.description) <= OPENAI_DESCRIPTION_MAX:
        return tool.description
    text, note, limit = tool.description, "", OPENAI_DESCRIPTION_MAX
    if text.endswith(APPROVAL_NOTE):  # the approval sentence is kept whole; what comes before is cut
        text = text.removesuffix(APPROVAL_NOTE).rstrip()
        note, limit = "\n\n" + APPROVAL_NOTE, limit - len(APPROVAL_NOTE) - 2
    if text == describe(tool.operation):
        return describe(tool.operation, limit) + note
    return shorten_text(text, limit) + note  # the config's own text


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
