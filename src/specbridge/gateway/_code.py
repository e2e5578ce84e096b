"""The MCP side of code mode (codemode/): a tools/call of `search` or `execute` handed to the API's (or
toolset's, `_toolset_code`) `CodeMode` with who is calling and what it reaches, and its `CallResult` as
the MCP answer. A script runs under the gateway's deadline on one tools/call, counted by the drain like
any call (`stopping.busy`): its API calls are the call service's, each with its own audit line naming
the script."""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from typing import Any

import anyio
import mcp_types as types
from mcp.shared.exceptions import MCPError

from .._errors import ErrorCode
from .._logging import log_event, monotonic
from ..access import Identity
from ..call import CallResult
from ..codemode import SEARCH, CodeMode, Context, Reach, SchemaOf
from ..config import ClientConfig
from ..service import Deadline
from ..tools import Tool
from ._gateway import ApiState, Gateway
from ._listing import api_reach, rules_of
from ._mcp import to_mcp_result, tool_entry

TIMEOUT = -32003


async def call_api_code_tool(
    gateway: Gateway,
    state: ApiState,
    client: ClientConfig | None,
    identity: Identity | None,
    name: str,
    arguments: Mapping[str, Any],
) -> types.CallToolResult:
    """`search` or `execute` of the API in code mode (`state.code.owns(name)`)."""
    assert state.code is not None
    reach = api_reach(state, rules_of(state, client, identity))
    bindings = client.bindings.get(state.api.name) if client is not None else None

    def schema_of(tool: Tool) -> Mapping[str, Any]:
        schema: Mapping[str, Any] = tool_entry(state.caller, tool, bindings)["inputSchema"]
        return schema

    return await call_code_tool(gateway, state.code, reach, schema_of, client, identity, name, arguments)


async def call_code_tool(
    gateway: Gateway,
    code: CodeMode,
    reach: Reach,
    schema_of: SchemaOf,
    client: ClientConfig | None,
    identity: Identity | None,
    name: str,
    arguments: Mapping[str, Any],
) -> types.CallToolResult:
    """`search` or `execute` of a code mode (`code.owns(name)`), for a caller who reaches `reach`;
    `schema_of`: a tool's input schema as this caller sees it. Counted under the code mode's name."""
    api, metrics = code.name, gateway.metrics
    metrics.call(api, name)
    if name == SEARCH:
        return _answered(gateway, api, await code.search(arguments, reach, schema_of))
    started = monotonic()
    context = Context(
        service=gateway.calls,
        store=gateway.ledger.open,
        client=client,
        identity=identity,
        reach=reach,
        deadline=Deadline(started + gateway.deadline),
        clock=time.time,
    )
    found: CallResult | None = None
    with anyio.move_on_after(gateway.deadline), gateway.calls.stopping.busy():
        found = await code.execute(arguments, context)
    if found is None:
        metrics.error(api, str(ErrorCode.GATEWAY_TIMEOUT))
        log_event("script timed out", level=logging.WARNING, api=api, deadline=gateway.deadline)
        raise MCPError(TIMEOUT, "timeout", data={"code": str(ErrorCode.GATEWAY_TIMEOUT)})
    log_event("script called", api=api, error=str(found.code) if found.is_error else None,
              ms=round((monotonic() - started) * 1000, 1))  # fmt: skip
    return _answered(gateway, api, found)


def _answered(gateway: Gateway, api: str, result: CallResult) -> types.CallToolResult:
    if result.is_error:
        gateway.metrics.error(api, str(result.code or ErrorCode.GATEWAY_INTERNAL))
    return to_mcp_result(result)
