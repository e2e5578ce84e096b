"""Streamable HTTP: each API at /<api>/mcp (and /mcp when there is only one), /healthz, /metrics, and
for an API with `oauth:` its Protected Resource Metadata at /.well-known/oauth-protected-resource/…

In front of the SDK's session manager sit two checks, in this order:
  1. `Origin`: a browser origin other than localhost / 127.0.0.1 / [::1] is refused with 403;
  2. the client key (when the config has clients): 401 without or with a wrong key, 403 for an API the
     client may not use; on an API with `oauth:`, a client key or an OAuth access token
     (`access.ResourceServer.admit`: 401 with a `WWW-Authenticate` challenge that leads to the metadata,
     403 `insufficient_scope`). The client rides along in the ASGI scope so handlers apply its bindings
     and secret (with a token, the `access.Identity` too: its scopes), and as the SDK's authenticated
     user so a session only answers the client that opened it.
The key or token itself is never stored past this check, never logged, and never sent upstream. Then a
cap on the sessions one client holds open per API (429 `session-limit`, see _sessions.py).
"""

from __future__ import annotations

import contextlib
import functools
import socket
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from urllib.parse import urlsplit

import anyio
import uvicorn
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import BaseRoute, Route
from starlette.types import Receive, Scope, Send

from .._errors import ErrorCode
from .._logging import log_event
from ..access import WELL_KNOWN, Identity, Refusal, ResourceServers, authenticate
from ..config import ApiConfig, ClientConfig
from ..files import file_routes
from ..store import StoreError
from ._accounts import account_routes
from ._admin import gateway_admin_routes
from ._cork import http_protocol
from ._drain import DrainingServer, InFlight, draining, end_sessions
from ._gateway import Gateway
from ._local import LOCAL_HOSTS, is_loopback
from ._protected import protected_resource_endpoint, resource_of
from ._server import CLIENT_SCOPE_KEY, IDENTITY_SCOPE_KEY, SNAPSHOT_SCOPE_KEY, ApiServer
from ._sessions import SESSION_HEADER, SessionTable
from ._shared_sessions import SharedManager, SharedSessions, shared_sessions, store_unavailable
from ._sockets import base_url
from ._toolsets import Toolsets, ToolsetServer

SESSION_IDLE_TIMEOUT = 1800.0


def origin_allowed(origin: str | None) -> bool:
    """No Origin (not a browser, or same-origin) or a localhost origin."""
    if not origin:
        return True
    parts = urlsplit(origin)
    return parts.scheme in ("http", "https") and (parts.hostname or "") in LOCAL_HOSTS


def _refuse(status: int, code: ErrorCode, message: str, extra: tuple[tuple[str, str], ...] = ()) -> Response:
    headers = dict(extra)
    if status == 401 and "WWW-Authenticate" not in headers:
        headers["WWW-Authenticate"] = 'Bearer realm="specbridge"'
    return JSONResponse(
        {"error": {"code": str(code), "message": message}}, status_code=status, headers=headers or None
    )


class McpEndpoint:
    """ASGI app for one API's MCP endpoint: the Origin check, the key check, then the SDK."""

    def __init__(
        self,
        gateway: Gateway,
        api: str,
        manager: StreamableHTTPSessionManager,
        sessions: SessionTable,
        resource_servers: ResourceServers | None = None,
        shared: SharedSessions | None = None,
    ) -> None:
        self.gateway = gateway
        self.api = api
        self.manager = manager
        self.sessions = sessions
        self.resource_servers = resource_servers or ResourceServers()
        self.shared = shared  # `sessions: store`: the sessions any instance serves (_shared_sessions.py)

    async def _admit_token(
        self, scope: Scope, headers: Headers, clients: Mapping[str, ClientConfig], api: ApiConfig
    ) -> Identity | Refusal:
        """An API with `oauth:`: a client key or an access token (`access.ResourceServer.admit`)."""
        server = self.resource_servers.of(api)
        return await server.admit(headers, clients, api, resource_of(scope, api, scope.get("path", "")))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = Headers(scope=scope)
        if not origin_allowed(headers.get("origin")):
            log_event("origin refused", api=self.api, status=403)
            await _refuse(403, ErrorCode.ORIGIN_REFUSED, "browser origins other than localhost are refused")(
                scope, receive, send
            )
            return
        snapshot = self.gateway.snapshot  # clients and API state of one config for the whole request
        scope[SNAPSHOT_SCOPE_KEY] = snapshot
        api = snapshot.config.apis.get(self.api)
        outcome: ClientConfig | Identity | Refusal | None
        if api is None or api.oauth is None:
            outcome = authenticate(headers, snapshot.clients, self.api)
        else:
            outcome = await self._admit_token(scope, headers, snapshot.clients, api)
        if isinstance(outcome, Refusal):
            log_event(
                "client refused",
                api=self.api,
                status=outcome.status,
                code=str(outcome.code),
                reason=outcome.message,
            )
            await _refuse(outcome.status, outcome.code, outcome.message, outcome.headers)(
                scope, receive, send
            )
            return
        client: str | None = None
        if isinstance(outcome, Identity):
            scope[IDENTITY_SCOPE_KEY] = outcome
            if outcome.client is not None:
                scope[CLIENT_SCOPE_KEY] = outcome.client
            client = outcome.name
            scope["user"] = AuthenticatedUser(
                AccessToken(token="", client_id=client, scopes=sorted(outcome.scopes))
            )
        elif outcome is not None:
            scope[CLIENT_SCOPE_KEY] = outcome
            scope["user"] = AuthenticatedUser(AccessToken(token="", client_id=outcome.id, scopes=[]))
            client = outcome.id
        session = headers.get(SESSION_HEADER)
        try:
            full = opens_session(scope, session, headers) and await self._full(client)
        except StoreError as error:
            await store_unavailable(error)(scope, receive, send)
            return
        if full:
            log_event("session limit", api=self.api, client=client, status=429)
            refusal = _refuse(
                429,
                ErrorCode.SESSION_LIMIT,
                f"this client already has {self.sessions.cap} open sessions here; reuse one, or end one "
                "with DELETE (idle sessions end after 30 minutes)",
            )
            refusal.headers["Retry-After"] = "60"
            await refusal(scope, receive, send)
            return
        if self.shared is not None:
            answer = None if session is None else await self.shared.admit(scope, client, session)
            if answer is not None:
                await answer(scope, receive, send)
                return
            await self.manager.handle_request(scope, receive, self.shared.watch(scope, send, client, session))
            return
        await self.manager.handle_request(scope, receive, self.sessions.watch(send, client, session))
        if session is not None and scope.get("method") == "DELETE":
            self.sessions.closed(session)

    async def _full(self, client: str | None) -> bool:
        return await self.shared.full(client) if self.shared is not None else self.sessions.full(client)


def opens_session(scope: Scope, session: str | None, headers: Headers) -> bool:
    """Whether a request may open a handshake-era session (so the client's cap is counted): a POST
    without a session that is not a 2026-07-28 request (those name their method in `Mcp-Method`, and
    only `initialize` opens a session), so a stateless call never needs the session store."""
    method = headers.get("mcp-method")
    return session is None and scope.get("method") == "POST" and method in (None, "initialize")


def security_settings(host: str) -> TransportSecuritySettings | None:
    """On loopback, the SDK's DNS-rebinding guard (Host and Origin must be local)."""
    if not is_loopback(host):
        return None
    local = ["127.0.0.1", "localhost", "[::1]"]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[*local, *(f"{name}:*" for name in local)],
        allowed_origins=[
            f"{scheme}://{name}{port}"
            for scheme in ("http", "https")
            for name in local
            for port in ("", ":*")
        ],
    )


def host_allowed(host: str | None, settings: TransportSecuritySettings | None) -> bool:
    """The SDK's Host rule for its endpoint, for our other routes: on loopback only a local Host."""
    if settings is None or not settings.enable_dns_rebinding_protection:
        return True
    if not host:
        return False
    return any(
        host == allowed or (allowed.endswith(":*") and host.startswith(allowed[:-1]))
        for allowed in settings.allowed_hosts
    )


def local_route(
    endpoint: Callable[[Request], Awaitable[Response]], settings: TransportSecuritySettings | None
) -> Callable[[Request], Awaitable[Response]]:
    """`endpoint` behind the MCP endpoint's Host and Origin checks: a DNS-rebinding page must not read
    tool names or counters from /healthz and /metrics either."""

    async def guarded(request: Request) -> Response:
        if not host_allowed(request.headers.get("host"), settings):
            log_event("host refused", path=request.url.path, status=421)
            return _refuse(
                421, ErrorCode.HOST_REFUSED, "this Host is not served here; use the gateway's own address"
            )
        if not origin_allowed(request.headers.get("origin")):
            log_event("origin refused", path=request.url.path, status=403)
            return _refuse(403, ErrorCode.ORIGIN_REFUSED, "browser origins other than localhost are refused")
        return await endpoint(request)

    return guarded


def http_app(
    gateway: Gateway,
    *,
    host: str = "127.0.0.1",
    max_sessions_per_client: int | None = None,
) -> Starlette:
    """The gateway's ASGI app. Its lifespan loads the APIs (unless started), watches for changes, and
    runs each API's session manager. Each client may hold `max_sessions_per_client` sessions per API."""
    servers = {name: ApiServer(gateway, name) for name in gateway.api_names}
    toolsets = Toolsets(gateway)  # endpoints of tools picked from several APIs (`toolsets:`)
    servers.update({name: ToolsetServer(gateway, name, toolsets) for name in gateway.config.toolsets})
    # `sessions: store`: a manager that can take up a session another instance opened (_shared_sessions)
    kind = SharedManager if gateway.config.sessions == "store" else StreamableHTTPSessionManager
    managers = {
        name: kind(
            app=server.server,
            security_settings=security_settings(host),
            session_idle_timeout=SESSION_IDLE_TIMEOUT,
            # A POST is answered with one JSON body, not an SSE stream: a tool call sends nothing but its
            # response (no progress, no server-to-client requests), and the stream's machinery
            # (a task group, a ping task, chunked framing) cost the gateway and the client more than
            # half their time per call. Notifications still reach handshake-era clients on their GET
            # stream; the 2026-07-28 `subscriptions/listen` stays a stream (the SDK routes it so).
            json_response=True,
        )
        for name, server in servers.items()
    }
    cap = max_sessions_per_client or gateway.config.limits.sessions_per_client  # `limits:` at start
    tables = {name: SessionTable(cap, SESSION_IDLE_TIMEOUT) for name in managers}
    shared = {
        name: shared_sessions(gateway, name, managers[name], cap, SESSION_IDLE_TIMEOUT) for name in managers
    }
    resource_servers = ResourceServers()  # each OAuth API's token checks and their caches
    posts = InFlight()  # POSTs being answered: a drain ends the sessions only after them (_drain)
    endpoints = {
        name: posts.counted(
            McpEndpoint(gateway, name, managers[name], tables[name], resource_servers, shared[name])
        )
        for name in managers
    }
    routes: list[BaseRoute] = [Route(f"/{name}/mcp", endpoint=endpoints[name]) for name in managers]
    if len(endpoints) == 1:
        routes.append(Route("/mcp", endpoint=next(iter(endpoints.values()))))

    async def healthz(request: Request) -> Response:
        stopping = draining(gateway)  # 503 while it drains, so a balancer stops sending (_drain)
        apis = {name: len(state.toolset.tools) for name, state in gateway.states.items()}
        status = "draining" if stopping else "ok"
        return JSONResponse({"status": status, "apis": apis}, status_code=503 if stopping else 200)

    async def metrics(request: Request) -> Response:
        return PlainTextResponse(gateway.metrics.render(), media_type="text/plain; version=0.0.4")

    local = security_settings(host)
    routes += [Route("/healthz", local_route(healthz, local)), Route("/metrics", local_route(metrics, local))]
    metadata = local_route(protected_resource_endpoint(gateway, gateway.api_names), local)
    routes += [Route(WELL_KNOWN, metadata), Route(WELL_KNOWN + "/{path:path}", metadata)]
    routes += file_routes(
        gateway.files, lambda: gateway.snapshot.clients, lambda endpoint: local_route(endpoint, local)
    )  # POST /files, …
    routes += account_routes(gateway, lambda host: host_allowed(host, local))  # /oauth/connect|callback/<api>
    routes += gateway_admin_routes(gateway, loopback=is_loopback(host))  # /admin/: approvals, sign-ins

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if not gateway.states:
            await gateway.start()
        await toolsets.start()
        async with contextlib.AsyncExitStack() as stack:
            for manager in managers.values():
                await stack.enter_async_context(manager.run())
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(gateway.watch)
                tasks.start_soon(gateway.run_webhooks)
                tasks.start_soon(gateway.run_approved)
                try:
                    yield
                finally:
                    tasks.cancel_scope.cancel()
        await resource_servers.aclose()
        await gateway.aclose()

    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.posts, app.state.mcp_managers = posts, tuple(managers.values())  # for `_drain.end_sessions`
    return app


def endpoint_urls(gateway: Gateway, base: str) -> dict[str, str]:
    urls = {name: f"{base}/{name}/mcp" for name in (*gateway.api_names, *gateway.config.toolsets)}
    if len(urls) == 1:
        return {name: f"{base}/mcp" for name in urls}
    return urls


async def serve_http(
    gateway: Gateway,
    sock: socket.socket,
    *,
    on_ready: Callable[[str], None] | None = None,
    stop: anyio.Event | None = None,
    max_sessions_per_client: int | None = None,
    drain_timeout: float | None = None,
) -> None:
    """Serve the gateway's app on `sock` with uvicorn until Ctrl-C, SIGTERM (drained first, for up to
    `drain_timeout` seconds, by default the call deadline: `_drain`) or `stop` is set."""
    host = sock.getsockname()[0]
    if gateway.host is None:
        gateway.host = host  # so that reloads keep the bind rule (`Gateway.unsafe`)
    app = http_app(gateway, host=host, max_sessions_per_client=max_sessions_per_client)
    config = uvicorn.Config(
        app,
        log_config=None,
        access_log=False,
        lifespan="on",
        timeout_graceful_shutdown=2,
        http=http_protocol(),  # httptools when installed (a dependency), else h11; one write per answer
    )
    ended = functools.partial(end_sessions, app.state.posts, app.state.mcp_managers)
    server = DrainingServer(config, gateway, drain_timeout or gateway.deadline, ended)

    async def announce() -> None:
        while not server.started:
            await anyio.sleep(0.01)
        if on_ready is not None:
            on_ready(base_url(sock))

    async def stopper(event: anyio.Event) -> None:
        await event.wait()
        server.should_exit = True

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(announce)
        if stop is not None:
            tasks.start_soon(stopper, stop)
        await server.serve(sockets=[sock])
        tasks.cancel_scope.cancel()
