"""What an MCP client sees of the call layer: a tool as one client lists it, and a `CallResult` as the
SDK's `CallToolResult`. Shared by the server's `tools/list`/`tools/call` and by search mode."""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

import mcp_types as types

from .._errors import ErrorCode
from ..call import Caller, CallResult
from ..files import with_file_fields
from ..service import key_plan, served_bindings, with_key_argument
from ..tools import Tool, mcp_tool


def tool_entry(caller: Caller, tool: Tool, client_bindings: Mapping[str, Any] | None) -> dict[str, Any]:
    """A tool as this client sees it: bound arguments (the tool's and the client's) are not there."""
    entry = mcp_tool(tool)
    plan = key_plan(caller.api, tool)  # the gateway's idempotency_key (docs/gateway.md)
    entry["inputSchema"] = caller.input_schema(tool, served_bindings(plan, client_bindings))
    if plan is not None:
        entry["inputSchema"] = with_key_argument(entry["inputSchema"], plan)
    entry["inputSchema"] = with_file_fields(entry["inputSchema"], tool)  # a file by its `file_id`
    return entry


def _error_text(result: CallResult) -> str:
    code = result.code or ErrorCode.GATEWAY_INTERNAL
    prefix = f"[{code}]"
    return result.text if result.text.startswith(prefix) else f"{prefix} {result.text}"


def to_mcp_result(result: CallResult) -> types.CallToolResult:
    """Text always; structuredContent for a JSON object; an image block for an image."""
    if result.is_error:
        return types.CallToolResult(content=[types.TextContent(text=_error_text(result))], is_error=True)
    content: list[types.ContentBlock] = []
    if result.image is not None:
        content.append(
            types.ImageContent(
                data=base64.b64encode(result.image.data).decode("ascii"), mime_type=result.image.mime_type
            )
        )
    if result.text or result.image is None:
        content.insert(0, types.TextContent(text=result.text))
    if result.structured is not None:
        return types.CallToolResult(content=content, structured_content=result.structured)
    return types.CallToolResult(content=content)
