"""The span of each MCP request (`_telemetry.server_span`), as the first middleware of every API's SDK
server, in place of the SDK's own: the SDK's span goes through OpenTelemetry's global provider, which
the gateway leaves alone, and it names the tool a request asks for whether or not one exists. Ours names
a tool only once the call found it (`_server`), and says how a request ended by code, never by message."""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.shared.exceptions import MCPError

from .. import _telemetry as telemetry
from .._errors import ErrorCode, SpecbridgeError
from .._version import __version__
from ..config import Config

ID_CHARS = 64  # a JSON-RPC id is the client's own text: recorded only this far


async def trace_request(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
    if not telemetry.enabled():
        return await call_next(ctx)
    from opentelemetry.trace import StatusCode

    attributes: dict[str, Any] = {"mcp.method.name": ctx.method, "mcp.protocol.version": ctx.protocol_version}
    if ctx.request_id is not None:
        attributes["jsonrpc.request.id"] = str(ctx.request_id)[:ID_CHARS]
    if ctx.method == "tools/call":
        attributes["gen_ai.operation.name"] = "execute_tool"
    headers = getattr(ctx.request, "headers", None)
    with telemetry.server_span(ctx.method, attributes, ctx.meta, headers) as span:
        try:
            result = await call_next(ctx)
        except MCPError as error:
            code = str(error.error.code)
            span.set_attributes({"error.type": code, "rpc.response.status_code": code})
            span.set_status(StatusCode.ERROR)
            raise
        except BaseException as error:
            span.set_attribute("error.type", type(error).__qualname__)
            span.set_status(StatusCode.ERROR)
            raise
        if isinstance(result, types.CallToolResult) and result.is_error:
            span.set_attribute("error.type", "tool_error")
            span.set_status(StatusCode.ERROR)
        return result


def start_telemetry(config: Config) -> None:
    """Export traces and metrics as the config's `telemetry:` (else the `OTEL_*` variables) asks; a
    header's secret that cannot be read is the config's error, a missing extra says which to install."""
    found = config.telemetry
    headers = {name: secret.reveal() for name, secret in found.headers.items()} if found.headers else None
    settings = telemetry.settings_from(
        found.endpoint,
        headers,
        service_name=found.service_name,
        sample=found.sample,
        metrics=found.metrics,
        version=__version__,
    )
    try:
        telemetry.start(settings)
    except ModuleNotFoundError as error:
        raise SpecbridgeError(
            f"telemetry needs the otel extra ({error.name} is not installed): pip install 'specbridge[otel]'",
            code=ErrorCode.EXTRA_MISSING,
        ) from None


async def stop_telemetry() -> None:
    """Export what is left (a network round trip: off the event loop) and turn telemetry off."""
    if telemetry.enabled():
        await anyio.to_thread.run_sync(telemetry.stop)
