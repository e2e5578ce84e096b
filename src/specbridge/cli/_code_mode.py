"""`specbridge tools --code-mode`: the two tools a model is handed for an API (or a toolset, `--api
TOOLSET`) in code mode (codemode/), in the format asked for, and on stderr how many tokens they are
against its tools as tools."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from .._json import dumps
from ..call import estimate_tokens
from ..codemode import code_mode_tools, document_tags
from ..tools import ExportFormat, ToolSet, export

if TYPE_CHECKING:
    from ..config import CodeModeConfig, Config


def code_mode_settings(config: Config | None, api_name: str | None) -> tuple[CodeModeConfig, str | None]:
    """The limits the execute tool's description tells (the config API's or toolset's, else the
    defaults), and a toolset's title (None for an API: its document's title is told)."""
    from ..config import CodeModeConfig

    if config is None:
        return CodeModeConfig(), None
    if api_name is not None and api_name in config.toolsets:
        toolset = config.toolsets[api_name]
        return toolset.code_mode, toolset.title or toolset.name
    return (config.api(api_name).code_mode if config.apis else config.code_mode), None


def _as(fmt: ExportFormat, tools: list[dict[str, Any]], strict: bool) -> Any:
    if fmt == "mcp":
        return {"tools": tools}
    if fmt == "anthropic":
        return [
            {"name": tool["name"], "description": tool["description"], "input_schema": tool["inputSchema"]}
            for tool in tools
        ]
    function = {"strict": True} if strict else {}
    return [
        {
            "type": "function",
            "function": {
                "name": tool["name"],
                "description": tool["description"],
                "parameters": _strict(tool["inputSchema"]) if strict else tool["inputSchema"],
                **function,
            },
        }
        for tool in tools
    ]


def _strict(schema: dict[str, Any]) -> dict[str, Any]:
    """OpenAI strict mode: every property required, an optional one nullable."""
    properties = {
        name: {**value, "type": [value["type"], "null"]} for name, value in schema["properties"].items()
    }
    for value in properties.values():
        value.pop("default", None)
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def code_mode_export(
    toolset: ToolSet, fmt: ExportFormat, *, strict: bool, limits: CodeModeConfig, title: str | None = None
) -> str:
    """The export, and its token count (o200k_base estimate) beside the tools' own, said on stderr.
    `title`: a toolset's (its tools come from several documents: no tags, as the gateway serves it)."""
    tags = document_tags(toolset) if title is None else ()
    tools = code_mode_tools(title or toolset.document.title, len(toolset.tools), limits, tags)
    text = dumps(_as(fmt, tools, strict), indent=True)
    as_tools = dumps(export(toolset, fmt, strict=strict), indent=True)
    click.echo(
        f"code mode: {len(tools)} tools, about {estimate_tokens(text):,} tokens handed to the model; the "
        f"{len(toolset.tools):,} operations as tools: about {estimate_tokens(as_tools):,} tokens",
        err=True,
    )
    return text
