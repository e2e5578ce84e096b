"""What an MCP client sees of the call layer: a tool as one client lists it, and a `CallResult` as the
SDK's `CallToolResult`. Shared by the server's `tools/list`/`tools/call` and by search mode."""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

import mcp_types as types

from .._errors import ErrorCode
from ..call import Caller, CallResult, KeptFile
from ..files import with_file_fields
from ..service import key_plan, served_bindings, with_key_argument
from ..tools import Tool, mcp_tool


def tool_entry(
    caller: Caller, tool: Tool, client_bindings: Mapping[str, Any] | None, *, modern: bool = False
) -> dict[str, Any]:
    """A tool as this client sees it: bound arguments (the tool's and the client's) are not there;
    `modern` (2026-07-28): an `outputSchema` whatever the answer's root, a list's too."""
    entry = mcp_tool(tool)
    if modern and tool.output_schema is None and tool.answer_schema is not None:
        entry["outputSchema"] = tool.answer_schema
    plan = key_plan(caller.api, tool)  # the gateway's idempotency_key (docs/keys-and-long-calls.md)
    entry["inputSchema"] = caller.input_schema(tool, served_bindings(plan, client_bindings))
    if plan is not None:
        entry["inputSchema"] = with_key_argument(entry["inputSchema"], plan)
    entry["inputSchema"] = with_file_fields(entry["inputSchema"], tool)  # a file by its `file_id`
    return entry


def _error_text(result: CallResult) -> str:
    code = result.code or ErrorCode.GATEWAY_INTERNAL
    prefix = f"[{code}]"
    return result.text if result.text.startswith(prefix) else f"{prefix} {result.text}"


def to_mcp_result(
    result: CallResult, *, modern: bool = False, files: str | None = None
) -> types.CallToolResult:
    """Text always; structuredContent for a JSON object (`modern`, 2026-07-28: for any JSON value); an
    image block for an image; a `resource_link` to a kept file's download URL under `files` (the
    gateway's `/files/` URL over HTTP; None over stdio, where the text's `file_id` is the handle)."""
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
    if result.file is not None and files is not None:
        content.append(resource_link(result.file, files))
    structured = result.structured
    if structured is not None and (modern or isinstance(structured, dict)):
        return types.CallToolResult(content=content, structured_content=structured)
    return types.CallToolResult(content=content)


def resource_link(file: KeptFile, files: str) -> types.ResourceLink:
    """A kept file as MCP's `resource_link`: its download URL (the client's key reads it), name, type
    and size."""
    return types.ResourceLink(
        uri=files + file.file_id,
        name=file.filename or file.file_id,
        title=file.filename,
        description=f'The API\'s answer, kept as the file {file.file_id}; pass {{"file_id": '
        f'"{file.file_id}"}} to a tool that takes a file.',
        mime_type=file.mime_type,
        size=file.size,
    )


def files_url(ctx: Any) -> str | None:
    """Where this gateway serves `/files/` for the request `ctx` answers (over HTTP: the URL the client
    reached it at); None over stdio."""
    base = getattr(getattr(ctx, "request", None), "base_url", None)
    return f"{str(base).rstrip('/')}/files/" if base is not None else None
