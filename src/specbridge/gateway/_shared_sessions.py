"""Handshake-era MCP sessions that any instance serves (`sessions: store`).

The SDK's session manager keeps a session (its transport and the server task behind it) in the process
that answered `initialize`; behind a load balancer without stickiness the next request lands on another
instance, which answered `-32600 Session not found`. Here a session is also a record in the store: the
SHA-256 of its id (never the id), the client it belongs to, the protocol version and the client's
capabilities and info from its handshake, when it was opened and last used, and its expiry (the idle
timeout, pushed on as it is used). Then:

- `initialize` answered: the record is written before the answer (with its `Mcp-Session-Id`) leaves,
  so the client's next request finds it on any instance;
- a request for a session this process does not hold: the record is read; the same client's key takes
  it up (`SharedManager.adopt`: a transport with the session's id, a server connection made ready with
  the stored handshake, no `initialize` again), then the request is served; another client's key gets
  the SDK's own 404, as if no such session existed;
- every request for a session checks the record is still there, so a session ended on one instance
  (DELETE) or expired is ended on all, at their next request;
- `DELETE` removes the record first, then ends the session where it is served;
- a client's cap on open sessions is counted in the store (across instances, closely: two `initialize`
  at the same moment on two instances may both pass the count).

What stays in the process that holds it: an open GET stream (its server-to-client messages: change
notifications, elicitations during a call), and a request in flight. A client opens the GET stream again
wherever the balancer sends it (the specification lets a client reconnect it at any time). A store that
cannot be reached is a 503 with a JSON-RPC error whose data says `store-unavailable`, never a 500.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import anyio
from anyio.abc import TaskStatus
from mcp.server.auth.middleware.bearer_auth import (
    AuthenticatedUser,
    AuthorizationContext,
    authorization_context,
)
from mcp.server.connection import Connection
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.runner import serve_connection
from mcp.server.streamable_http import StreamableHTTPServerTransport
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.shared.jsonrpc_dispatcher import JSONRPCDispatcher
from mcp.shared.transport_context import TransportContext
from mcp_types import (
    INTERNAL_ERROR,
    INVALID_REQUEST,
    ClientCapabilities,
    ErrorData,
    InitializeRequestParams,
    JSONRPCError,
)
from pydantic import ValidationError
from starlette.datastructures import Headers
from starlette.responses import Response
from starlette.types import Message, Scope, Send

from .._errors import ErrorCode
from .._json import dumps
from .._logging import log_event
from ..store import Store, StoredSession, StoreError
from ._gateway import Gateway

HANDSHAKE_SCOPE_KEY = "specbridge.handshake"  # where `note_handshake` leaves what `initialize` said
SESSION_HEADER = "mcp-session-id"
TOUCH_EVERY = 60.0  # seconds: a session's expiry in the store is pushed on at most this often
HANDSHAKE_BYTES = 16 * 1024  # of the client's capabilities, and of its info, kept with a session
_log = logging.getLogger(__name__)


def session_key(session_id: str) -> str:
    """What the store knows a session by: never the id itself."""
    return hashlib.sha256(session_id.encode("utf-8", "surrogatepass")).hexdigest()


def json_rpc_error(status: int, code: int, message: str, data: Any = None) -> Response:
    body = JSONRPCError(jsonrpc="2.0", id=None, error=ErrorData(code=code, message=message, data=data))
    return Response(
        body.model_dump_json(by_alias=True, exclude_none=True),
        status_code=status,
        media_type="application/json",
    )


def store_unavailable(error: StoreError) -> Response:
    response = json_rpc_error(
        503,
        INTERNAL_ERROR,
        "the session store is unavailable; try again shortly",
        {"code": str(ErrorCode.STORE_UNAVAILABLE)},  # the store's name and fault go to the log only
    )
    response.headers["Retry-After"] = "5"
    return response


def not_found() -> Response:
    """The SDK's own answer for a session it does not know (so another client's key learns nothing)."""
    return json_rpc_error(404, INVALID_REQUEST, "Session not found")


async def note_handshake(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
    """Server middleware: after a successful `initialize` over HTTP, leave its negotiated protocol
    version and the client's capabilities and info where the endpoint finds them (the request's scope)."""
    result = await call_next(ctx)
    if ctx.method == "initialize" and ctx.request is not None:
        slot = getattr(ctx.request, "scope", {}).get(HANDSHAKE_SCOPE_KEY)
        params = ctx.params or {}
        if isinstance(slot, dict) and isinstance(result, Mapping):
            slot["protocol_version"] = result.get("protocolVersion") or params.get("protocolVersion")
            slot["capabilities"] = _kept(params.get("capabilities"), {})
            slot["client_info"] = _kept(params.get("clientInfo"), None)
    return result


def _kept(value: Any, instead: Any) -> Any:
    """`value` as the store keeps it: up to `HANDSHAKE_BYTES` of JSON; a larger one (a client's own
    extensions) as its top-level names only, so one client cannot fill the store through its handshake."""
    if len(dumps(value)) <= HANDSHAKE_BYTES:
        return value if value is not None else instead
    if isinstance(value, Mapping):
        return {str(name)[:64]: {} for name in list(value)[:32]}
    return instead


def _ready_connection(connection: Connection, handshake: Mapping[str, Any]) -> None:
    """`connection` as the stored handshake left it: version, client params, initialized."""
    version = str(handshake.get("protocol_version") or connection.protocol_version)
    try:
        connection.client_params = InitializeRequestParams.model_validate(
            {
                "protocolVersion": version,
                "capabilities": handshake.get("capabilities") or {},
                "clientInfo": handshake.get("client_info"),
            }
        )
    except ValidationError:  # no client info: the capabilities alone
        try:
            connection.client_capabilities = ClientCapabilities.model_validate(
                handshake.get("capabilities") or {}
            )
        except ValidationError:
            connection.client_capabilities = None
    connection.protocol_version = version
    connection.initialized.set()


class SharedManager(StreamableHTTPSessionManager):
    """The SDK's session manager, which can also take up a session another instance opened."""

    def holds(self, session_id: str) -> bool:
        return session_id in self._server_instances

    async def forget(self, session_id: str) -> None:
        """End this process's part of a session the store no longer has (ended elsewhere, expired)."""
        transport = self._server_instances.get(session_id)
        if transport is not None:
            await self._discard_session(session_id, transport)

    async def adopt(
        self, session_id: str, handshake: Mapping[str, Any], requestor: AuthorizationContext | None
    ) -> bool:
        """Serve `session_id` here from now on, as initialized by `handshake`; False at the manager's
        own cap on sessions (`max_sessions`)."""
        async with self._session_creation_lock:
            if session_id in self._server_instances:
                return True
            if self.max_sessions is not None and len(self._server_instances) >= self.max_sessions:
                return False
            transport = StreamableHTTPServerTransport(
                mcp_session_id=session_id,
                is_json_response_enabled=self.json_response,
                event_store=self.event_store,
                security_settings=self.security_settings,
                retry_interval=self.retry_interval,
                idle_timeout=self.session_idle_timeout,
            )
            assert self._task_group is not None
            # connected first, then known: no request reaches a transport whose session task is not up
            await self._task_group.start(self._run_adopted, session_id, transport, dict(handshake))
            if requestor is not None:
                self._session_owners[session_id] = requestor
            self._server_instances[session_id] = transport
        return True

    async def _run_adopted(
        self,
        session_id: str,
        transport: StreamableHTTPServerTransport,
        handshake: dict[str, Any],
        *,
        task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED,
    ) -> None:
        """The SDK's session task (`serve_loop`), with a connection made ready by the stored handshake."""
        async with transport.connect() as (read_stream, write_stream):
            dispatcher: JSONRPCDispatcher[TransportContext] = JSONRPCDispatcher(
                read_stream, write_stream, inline_methods=frozenset({"initialize"})
            )
            connection = Connection.for_loop(dispatcher, session_id=session_id)
            _ready_connection(connection, handshake)
            task_status.started()
            try:
                idle_scope = transport.idle_scope if transport.idle_scope is not None else anyio.CancelScope()
                with idle_scope:
                    await serve_connection(
                        self.app, dispatcher, connection=connection, lifespan_state=self._lifespan_state
                    )
            except Exception:
                _log.exception("adopted session crashed")
            finally:
                await self._discard_session(session_id, transport)


def requestor_of(scope: Scope) -> AuthorizationContext | None:
    user = scope.get("user")
    return authorization_context(user) if isinstance(user, AuthenticatedUser) else None


class SharedSessions:
    """One API's handshake-era sessions in the store, in front of its `SharedManager` (see the module)."""

    def __init__(
        self,
        api: str,
        manager: SharedManager,
        store: Callable[[], Awaitable[Store]],
        *,
        cap: int,
        idle_timeout: float,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.api = api
        self.kind = f"mcp:{api}"
        self.manager = manager
        self.cap = cap
        self.idle_timeout = idle_timeout
        self._store = store
        self._clock = clock

    async def full(self, client: str | None) -> bool:
        """Whether `client` holds its cap of open sessions here, on every instance (StoreError if the
        store cannot say)."""
        try:
            store = await self._store()
            return await store.count_sessions(self.kind, client or "", self._clock()) >= self.cap
        except StoreError as error:
            log_event("session store unavailable", api=self.api, client=client, status=503, reason=str(error))
            raise

    async def admit(self, scope: Scope, client: str | None, session: str) -> Response | None:
        """None when the SDK may serve this request for `session` (taken up here first, if need be;
        for a DELETE, ended in the store first); else the answer to send instead: 404, or 503."""
        try:
            store = await self._store()
            now = self._clock()
            record = await store.get_session(session_key(session), now)
            if record is None or record.kind != self.kind:
                await self.manager.forget(session)
                return None  # the SDK answers 404: the client opens a new session
            if record.owner != (client or ""):
                log_event("session of another client refused", api=self.api, client=client, status=404)
                return not_found()
            if scope.get("method") == "DELETE":
                await store.end_session(record.id)
            elif record.expires_at - now < self.idle_timeout - TOUCH_EVERY:
                await store.touch_session(record.id, now + self.idle_timeout, now)
        except StoreError as error:
            log_event("session store unavailable", api=self.api, client=client, status=503, reason=str(error))
            return store_unavailable(error)
        if not self.manager.holds(session):
            if not await self.manager.adopt(session, record.data, requestor_of(scope)):
                return json_rpc_error(503, INTERNAL_ERROR, "Too many open sessions")
            log_event("session taken up from the store", api=self.api, client=client)
        return None

    def watch(self, scope: Scope, send: Send, client: str | None, session: str | None) -> Send:
        """`send`, which keeps the session an `initialize` opens in the store before its answer leaves
        (answering 503 instead if the store cannot keep it)."""
        if session is not None or scope.get("method") != "POST":
            return send
        handshake: dict[str, Any] = {}
        scope[HANDSHAKE_SCOPE_KEY] = handshake
        refused = False

        async def keeping(message: Message) -> None:
            nonlocal refused
            if refused:
                return  # the SDK's answer, replaced by the refusal
            if message["type"] == "http.response.start":
                opened = Headers(raw=message.get("headers", [])).get(SESSION_HEADER)
                if opened and message["status"] < 400 and handshake:
                    try:
                        await self._keep(opened, client, handshake)
                    except StoreError as error:
                        refused = True
                        await self.manager.forget(opened)
                        log_event("session store unavailable", api=self.api, client=client, status=503)
                        await store_unavailable(error)(scope, _no_receive, send)
                        return
            await send(message)

        return keeping

    async def _keep(self, session: str, client: str | None, handshake: Mapping[str, Any]) -> None:
        store = await self._store()
        now = self._clock()
        record = StoredSession(
            session_key(session), self.kind, client or "", dict(handshake), now, now, now + self.idle_timeout
        )
        await store.put_session(record, now)


def shared_sessions(
    gateway: Gateway, api: str, manager: StreamableHTTPSessionManager, cap: int, idle_timeout: float
) -> SharedSessions | None:
    """With `sessions: store` (a `SharedManager`), the API's handshake-era sessions any instance serves."""
    if not isinstance(manager, SharedManager):
        return None
    manager.app.middleware.append(note_handshake)  # what `initialize` said is kept with the session
    return SharedSessions(api, manager, gateway.ledger.open, cap=cap, idle_timeout=idle_timeout)


async def _no_receive() -> Message:
    return {"type": "http.disconnect"}
