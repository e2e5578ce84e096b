"""One MCP server (the official SDK's low-level `Server`) per API: tools/list, tools/call, list_changed.
It adapts MCP requests and results and maps errors; a call's life is the call service's (service/): a
tools/call becomes a `CallRequest`, its `CallResult` (or `Question`, `_elicit`) the MCP answer.
Error mapping (PRODUCT §5, docs/calls.md, "Results and errors"):
    unknown tool, or one the caller    JSON-RPC -32602  (data.code "tool-unknown"), the same for both:
      may not use                      a tool a client may not use is not in its listing either
    a cursor we did not hand out       JSON-RPC -32602  (data.code "cursor-invalid")
    params not of the shape MCP says   JSON-RPC -32602  (data.code "params-invalid")
    bad arguments, API failures        result with isError: true, text "[<code>] <message>"
    the gateway's deadline             JSON-RPC -32003 "timeout" (data.code "gateway-timeout")
    anything else                      JSON-RPC -32603 "internal error", nothing else said"""

from __future__ import annotations

import logging
import weakref
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import anyio
import jsonschema_rs
import mcp_types as types
from mcp.server.caching import CacheHint
from mcp.server.connection import Connection
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.models import InitializationOptions
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError

from .. import _telemetry as telemetry
from .._errors import ErrorCode
from .._logging import log_event, monotonic
from .._version import __version__
from ..access import Identity
from ..call import CallResult, shortened_error
from ..config import ApiConfig, ClientConfig
from ..grants import AccountNotConnected
from ..service import GET_CALL_RESULT, Asking, CallRequest, Deadline, Question
from ._accounts import ask_to_connect
from ._code import call_api_code_tool
from ._elicit import ask_user, asking, input_required
from ._gateway import ApiState, Gateway, Snapshot
from ._listing import (
    LIST_TTL_MS,
    cache_scope,
    decode_cursor,
    encode_cursor,
    listing,
    offers_results,
    rules_of,
)
from ._mcp import files_url, to_mcp_result
from ._outages import CallOutages
from ._params import about_params, invalid_params
from ._tasks import TaskMethods, as_task, declared
from ._tracing import trace_request

Answered = types.CallToolResult | types.InputRequiredResult
Unknown = Callable[[str], Answered]  # what a call of a tool the caller cannot use gets
PAGE_SIZE = 100
PAGE_BYTES = 512 * 1024
TIMEOUT = -32003
CLIENT_SCOPE_KEY = "specbridge.client"
SNAPSHOT_SCOPE_KEY = "specbridge.snapshot"
IDENTITY_SCOPE_KEY = "specbridge.identity"  # the `access.Identity` of a request let in on an OAuth API


class _GatewayServer(Server[Any]):
    """The SDK server, announcing `tools.listChanged` to handshake-era clients on every transport."""

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> InitializationOptions:
        return super().create_initialization_options(
            notification_options or NotificationOptions(tools_changed=True),
            experimental_capabilities,
            extensions,
        )


def view_of(ctx: ServerRequestContext[Any, Any], gateway: Gateway) -> tuple[Snapshot, ClientConfig | None]:
    """The snapshot a request runs on and its client, taken once: over HTTP both were fixed when the
    key was checked (the HTTP layer puts them in the scope); over stdio, the snapshot now and its
    `--client`. A reload meanwhile does not pair the client with another config's API state."""
    scope = getattr(ctx.request, "scope", None)
    if isinstance(scope, Mapping):
        snapshot = scope.get(SNAPSHOT_SCOPE_KEY)
        client = scope.get(CLIENT_SCOPE_KEY)
        return (
            snapshot if isinstance(snapshot, Snapshot) else gateway.snapshot,
            client if isinstance(client, ClientConfig) else None,
        )
    snapshot = gateway.snapshot
    return snapshot, gateway.stdio_client_of(snapshot)


def client_of(ctx: ServerRequestContext[Any, Any], gateway: Gateway) -> ClientConfig | None:
    """The authenticated client of an HTTP request (set by the HTTP layer); stdio's `--client`."""
    return view_of(ctx, gateway)[1]


def identity_of(ctx: ServerRequestContext[Any, Any]) -> Identity | None:
    """Who a request on an API with `oauth:` was let in as (a token's scopes); None otherwise."""
    scope = getattr(ctx.request, "scope", None)
    found = scope.get(IDENTITY_SCOPE_KEY) if isinstance(scope, Mapping) else None
    return found if isinstance(found, Identity) else None


class ApiServer:
    """The MCP server of one API, with the sessions and listen streams to tell about changes."""

    def __init__(self, gateway: Gateway, api: str) -> None:
        self.gateway = gateway
        self.api = api
        self.bus = InMemorySubscriptionBus()
        self._legacy_connections: weakref.WeakSet[Connection] = weakref.WeakSet()
        self.server = _GatewayServer(
            f"specbridge-{api}",
            version=__version__,
            title=f"specbridge: {api}",
            cache_hints={"server/discover": CacheHint(LIST_TTL_MS, "public")},  # the same for every caller
            on_list_tools=self.list_tools,
            on_call_tool=self.call_tool,
            on_subscriptions_listen=ListenHandler(self.bus),
            get_tool_input_schema=self.input_schema_for_headers,
        )
        self.server.middleware[:] = [trace_request, self._guard]  # our request span, not the SDK's
        TaskMethods(gateway.calls, self._task_view, self._task_answer).serve(self.server)
        self.outages = CallOutages(api)  # a failure of every call said once (warning), and its end
        gateway.on_change(self._changed)

    # -- change notifications ----------------------------------------------------------------------

    async def _guard(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        """Remember handshake-era sessions (to notify them), and let no fault's text reach the client."""
        if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            # `ServerSession` is per request; its connection is what outlives it and reaches the client's
            # standalone channel (stdio, or the GET stream of Streamable HTTP). The SDK 2.3 low-level
            # context does not expose it publicly.
            connection = getattr(ctx.session, "_connection", None)
            if isinstance(connection, Connection):
                self._legacy_connections.add(connection)
        try:
            return await call_next(ctx)
        except (MCPError, anyio.get_cancelled_exc_class()):
            raise
        except ValidationError as error:
            if not about_params(error):
                raise self._internal(ctx.method) from None
            # the SDK's own check of the params, before our handler ran
            self.gateway.metrics.error(self.api, str(ErrorCode.PARAMS_INVALID))
            log_event("request params invalid", api=self.api, method=ctx.method)
            raise invalid_params(error) from None
        except Exception:
            raise self._internal(ctx.method) from None

    def _internal(self, method: str, **fields: Any) -> MCPError:
        """The one internal-error path: log the fault being handled (with its traceback, to the log
        only), count it, and return what the client gets: -32603 and nothing else said."""
        self.gateway.metrics.error(self.api, str(ErrorCode.GATEWAY_INTERNAL))
        log_event(
            "request failed inside the gateway",
            level=logging.ERROR,
            exc_info=True,
            api=self.api,
            method=method,
            **fields,
        )
        return MCPError(
            types.INTERNAL_ERROR, "internal error", data={"code": str(ErrorCode.GATEWAY_INTERNAL)}
        )

    async def _changed(self, api: str) -> None:
        if api != self.api:
            return
        await self.bus.publish(ToolsListChanged())  # 2026-07-28: subscriptions/listen streams
        for connection in list(self._legacy_connections):  # handshake era: the connection's channel
            try:
                await connection.send_tool_list_changed()  # best effort; never raises by contract
            except Exception:  # a closed connection must not stop the others hearing about it
                self._legacy_connections.discard(connection)

    # -- tools/list --------------------------------------------------------------------------------

    async def list_tools(
        self, ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        snapshot, client = view_of(ctx, self.gateway)
        state = snapshot.state(self.api)
        modern = ctx.protocol_version in MODERN_PROTOCOL_VERSIONS
        rules = rules_of(state, client, identity_of(ctx))
        tools, sizes = listing(state, client, rules, modern=modern, files_ttl=snapshot.config.files.ttl)
        offset = decode_cursor(params.cursor) if params is not None and params.cursor else 0
        if offset > len(tools):
            decode_cursor("")
        end, total = offset, 0
        # At most PAGE_SIZE tools and about PAGE_BYTES of JSON (always at least one tool): the SDK
        # clients refuse a server-sent event over 1 MiB, which 100 of Stripe's tools exceed.
        while (
            end < len(tools)
            and end - offset < PAGE_SIZE
            and (end == offset or total + sizes[end] <= PAGE_BYTES)
        ):
            total += sizes[end]
            end += 1
        return types.ListToolsResult(
            tools=tools[offset:end],
            next_cursor=encode_cursor(end) if end < len(tools) else None,
            ttl_ms=LIST_TTL_MS,
            cache_scope=cache_scope(snapshot.config, state),
        )

    def input_schema_for_headers(self, name: str) -> Mapping[str, Any] | None:
        state = self.gateway.state(self.api)
        if state.search is not None and state.search.owns(name):
            return state.search.input_schema(name)
        if state.code is not None and state.code.owns(name):
            return state.code.input_schema(name)
        tool = state.toolset.get(name)
        return tool.input_schema if tool is not None else None

    # -- tools/call --------------------------------------------------------------------------------

    async def call_tool(
        self, ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        snapshot, client = view_of(ctx, self.gateway)
        state, identity = snapshot.state(self.api), identity_of(ctx)
        name, arguments = params.name, params.arguments or {}
        client_id = client.id if client is not None else None
        call = _Call(ctx, params.input_responses, client, identity)
        if name == GET_CALL_RESULT and offers_results(state):
            deadline, results = Deadline.after(self.gateway.deadline), self.gateway.calls.result
            return call.result(await results(state.api, client_id, arguments, deadline, identity))
        if state.code is not None and state.code.owns(name):  # code mode: `search`, `execute` (_code)
            return await call_api_code_tool(self.gateway, state, client, identity, name, arguments)
        if (search := state.search) is not None and search.owns(name):

            def invoke(inner: str, inner_arguments: Mapping[str, Any]) -> Awaitable[Answered]:
                return self._invoke(state, call, inner, inner_arguments, search.unknown)

            bindings = client.bindings.get(self.api) if client is not None else None
            return await search.call(name, arguments, bindings, invoke, rules_of(state, client, identity))
        return await self._invoke(state, call, name, arguments, self._unknown)

    def _unknown(self, name: str) -> Answered:
        """-32602 `tool-unknown`: no tool has this name, or the caller may not use the one that has."""
        self.gateway.metrics.error(self.api, str(ErrorCode.TOOL_UNKNOWN))
        log_event("tool unknown", api=self.api)
        raise MCPError(
            types.INVALID_PARAMS, f"unknown tool: {name[:128]!r}", data={"code": str(ErrorCode.TOOL_UNKNOWN)}
        )

    async def _invoke(
        self, state: ApiState, call: _Call, name: str, arguments: Mapping[str, Any], unknown: Unknown
    ) -> Answered:
        tool, client, api = state.toolset.get(name), call.client, state.api.name  # a toolset's: its API's
        client_id = client.id if client is not None else None
        if tool is None:
            return unknown(name)
        metrics, service = self.gateway.metrics, self.gateway.calls
        metrics.call(api, tool.name)
        telemetry.rename(f"tools/call {tool.name}")
        telemetry.note(**{"gen_ai.tool.name": tool.name, "gateway.api": api})
        started = monotonic()
        where: dict[str, Any] = {"api": api, "tool": tool.name, "client": client_id}
        request = CallRequest(
            state.api,
            state.caller,
            tool,
            client,
            arguments,
            Deadline(started + self.gateway.deadline),
            call.asking(**where),
            call.identity,
        )
        result: CallResult | None = None
        # busy: a stop (SIGTERM) waits for this call, and cuts only its waits that send nothing
        with anyio.move_on_after(self.gateway.deadline), service.stopping.busy():
            try:
                outcome = await service.call(request)
                if isinstance(outcome, Question):
                    if call.round_trip:  # 2026-07-28: the client asks its user and calls again
                        log_event("tool call asks the client's user", **where)
                        return input_required(outcome)
                    answer = None
                    with service.stopping.cut():  # then `resume` answers `gateway-stopping`
                        answer = await ask_user(
                            call.session, call.request_id, outcome, service.until_answered
                        )
                    outcome = await service.resume(outcome, answer)
                result = outcome
            except Exception:
                raise self._internal("tools/call", tool=tool.name, client=client_id) from None
        elapsed = monotonic() - started
        metrics.upstream(api, elapsed)
        if result is None:
            metrics.error(api, str(ErrorCode.GATEWAY_TIMEOUT))
            log_event(
                "tool call timed out",
                level=logging.WARNING,
                deadline=self.gateway.deadline,
                **where,
            )
            raise MCPError(TIMEOUT, "timeout", data={"code": str(ErrorCode.GATEWAY_TIMEOUT)})
        if result.code is ErrorCode.TOOL_UNKNOWN:  # the caller's tool rules refused it (service: admit)
            return unknown(name)
        schema = tool.output_schema or (tool.answer_schema if call.round_trip else None)
        if not result.is_error and schema is not None:
            result = self._conform(state, tool.name, schema, result)
        telemetry.note(**{"gateway.outcome": str(result.code) if result.is_error else "ok"})
        if result.is_error:
            metrics.error(api, str(result.code or ErrorCode.GATEWAY_INTERNAL))
        log_event(
            "tool called",
            status=result.status,
            error=str(result.code) if result.is_error else None,
            ms=round(elapsed * 1000, 1),
            **where,
        )
        self.outages.after(client_id, result, state)
        if isinstance(result, AccountNotConnected):  # by URL-mode elicitation where the client can
            return ask_to_connect(call.session, call.round_trip, call.responses, result)
        if call.tasks and (task := as_task(result, state.api)) is not None:  # the client declared Tasks
            return task  # type: ignore[return-value]  # a claimed result shape, outside the SDK's union
        return call.result(result)

    def _task_view(self, ctx: ServerRequestContext[Any, Any]) -> tuple[ApiConfig, ClientConfig | None]:
        snapshot, client = view_of(ctx, self.gateway)
        return snapshot.state(self.api).api, client

    def _task_answer(self, ctx: ServerRequestContext[Any, Any], result: CallResult) -> types.CallToolResult:
        return to_mcp_result(result, modern=True, files=files_url(ctx))

    def _conform(self, state: ApiState, name: str, schema: Any, result: CallResult) -> CallResult:
        """MCP wants `structuredContent` that fits the tool's `outputSchema`; an answer that does not is
        handed on as an error result with the whole answer in its text (clients reject it otherwise)."""
        if result.shortened:  # a list shortened to the budget; an object's was made this error in call/
            return shortened_error(result)
        key = (name, schema.get("type") if isinstance(schema, dict) else None)  # an object's, or any root's
        validator = state.validators.get(key)
        if validator is None:
            try:
                validator = jsonschema_rs.validator_for(schema)
            except Exception:  # a schema the validator cannot compile: do not second-guess the answer
                validator = _ACCEPT_ALL
            state.validators.put(key, validator)
        if result.structured is not None and validator.is_valid(result.structured):
            return result
        return CallResult(
            text="The API's answer does not match the schema its document gives for this operation; "
            "here it is as it came:\n" + result.text,
            is_error=True,
            code=ErrorCode.RESPONSE_UNEXPECTED,
            status=result.status,
        )


class _Call:
    """Who makes this tools/call (its client, the identity it was let in as), and what the call service
    may ask of its client: its session (to elicit during the call, handshake era) or the answer a
    2026-07-28 retry carries (the question then ends the call)."""

    def __init__(
        self,
        ctx: ServerRequestContext[Any, Any],
        responses: types.InputResponses | None,
        client: ClientConfig | None,
        identity: Identity | None,
    ) -> None:
        self.client = client
        self.identity = identity
        self.session = ctx.session
        self.request_id = ctx.request_id
        self.responses = responses
        self.round_trip = ctx.session.protocol_version in MODERN_PROTOCOL_VERSIONS
        self.files = files_url(ctx)
        self.tasks = declared(ctx)

    def asking(self, **where: Any) -> Asking:
        return asking(self.session, self.responses, **where)

    def result(self, result: CallResult) -> types.CallToolResult:
        """`result` as this client's revision carries it, kept files linked where it can fetch them."""
        return to_mcp_result(result, modern=self.round_trip, files=self.files)


class _AcceptAll:
    def is_valid(self, instance: Any) -> bool:
        return True


_ACCEPT_ALL = _AcceptAll()
