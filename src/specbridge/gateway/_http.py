"""Streamable HTTP: each API at /<api>/mcp (and /mcp when there is only one), /healthz, /metrics, and
for an API with `oauth:` its Protected Resource Metadata at /.well-known/oauth-protected-resource/…

In front of the SDK's session manager sit two checks, in this order:
  1. `Origin`: a browser origin other than localhost / 127.0.0.1 / [::1] is refused with 403;
  2. the gateway's one admission step (`access.Admission.at_api`): the client key (when the config has
     clients): 401 without or with a wrong key, 403 for an API the client may not use; on an API with
     `oauth:`, a client key or an OAuth access token (`access.ResourceServer.admit`: 401 with a
     `WWW-Authenticate` challenge that leads to the metadata, 403 `insufficient_scope`). The
     `access.Identity` rides along in the ASGI scope (with its client, so handlers apply its bindings
     and secret, and a token's scopes), and as the SDK's authenticated user so a session only answers
     the client that opened it. `/files` takes the same step (`Admission.anywhere`): the same
     credentials, and nothing only where an MCP endpoint takes nothing.
The key or token itself is never stored past this check, never logged, and never sent upstream. Then a
cap on the sessions one client holds open per API (429 `session-limit`, see _sessions.py).
"""

from __future__ import annotations

import contextlib
import functools
import socket
from collections.abc import AsyncIterator, Callable, Mapping

import anyio
import uvicorn
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import BaseRoute, Route
from starlette.types import Receive, Scope, Send

from .._errors import ErrorCode
from .._logging import log_event
from ..access import NOBODY, WELL_KNOWN, Admission, Identity, Refusal, ResourceServers, refused
from ..config import ApiConfig, ClientConfig
from ..files import file_routes
from ..store import StoreError
from ._accounts import account_routes
from ._admin import gateway_admin_routes
from ._cork import http_protocol
from ._drain import DrainingServer, InFlight, draining, end_sessions
from ._edge import files_admission, host_allowed, local_route, origin_allowed, security_settings
from ._gateway import Gateway
from ._local import is_loopback
from ._oauth_front import front_routes_of, gateway_front
from ._protected import protected_resource_endpoint, resource_of
from ._server import CLIENT_SCOPE_KEY, IDENTITY_SCOPE_KEY, SNAPSHOT_SCOPE_KEY, ApiServer
from ._sessions import SESSION_HEADER, SessionTable
from ._shared_sessions import SharedManager, SharedSessions, shared_sessions, store_unavailable
from ._sockets import base_url
from ._toolsets import Toolsets, ToolsetServer

SESSION_IDLE_TIMEOUT = 1800.0


class McpEndpoint:
    """ASGI app for one API's MCP endpoint: the Origin check, the key check, then the SDK."""

    def __init__(
        self,
        gateway: Gateway,
        api: str,
        manager: StreamableHTTPSessionManager,
        sessions: SessionTable,
        admission: Admission | None = None,
        shared: SharedSessions | None = None,
    ) -> None:
        self.gateway = gateway
        self.api = api
        self.manager = manager
        self.sessions = sessions
        self.admission = admission or Admission()
        self.shared = shared  # `sessions: store`: the sessions any instance serves (_shared_sessions.py)

    async def _admit(
        self, scope: Scope, headers: Headers, clients: Mapping[str, ClientConfig], api: ApiConfig | None
    ) -> Identity | Refusal:
        if api is None:  # no longer served (a reload): as an API without `oauth:` would answer
            api = ApiConfig(name=self.api, spec="")
        found = api  # the resource is made only for an API with `oauth:` (a key client never needs it)
        return await self.admission.at_api(
            headers, clients, api, lambda: resource_of(scope, found, scope.get("path", ""))
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = Headers(scope=scope)
        if not origin_allowed(headers.get("origin")):
            log_event("origin refused", api=self.api, status=403)
            await refused(403, ErrorCode.ORIGIN_REFUSED, "browser origins other than localhost are refused")(
                scope, receive, send
            )
            return
        snapshot = self.gateway.snapshot  # clients and API state of one config for the whole request
        scope[SNAPSHOT_SCOPE_KEY] = snapshot
        outcome = await self._admit(scope, headers, snapshot.clients, snapshot.config.apis.get(self.api))
        if isinstance(outcome, Refusal):
            log_event(
                "client refused",
                api=self.api,
                status=outcome.status,
                code=str(outcome.code),
                reason=outcome.message,
            )
            await refused(outcome.status, outcome.code, outcome.message, outcome.headers)(
                scope, receive, send
            )
            return
        client: str | None = None
        if outcome is not NOBODY:
            scope[IDENTITY_SCOPE_KEY] = outcome
            if outcome.client is not None:
                scope[CLIENT_SCOPE_KEY] = outcome.client
            client = outcome.name
            scopes = sorted(outcome.token.scopes) if outcome.token is not None else []
            scope["user"] = AuthenticatedUser(AccessToken(token="", client_id=client, scopes=scopes))
        session = headers.get(SESSION_HEADER)
        try:
            full = opens_session(scope, session, headers) and await self._full(client)
        except StoreError as error:
            await store_unavailable(error)(scope, receive, send)
            return
        if full:
            log_event("session limit", api=self.api, client=client, status=429)
            refusal = refused(
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
    front = gateway_front(gateway)  # `oauth_server:`: the gateway's own authorization server
    admission = Admission(ResourceServers(alive=front.alive))  # every route's one admission step
    front.issuer.on_revoke.append(admission.servers.ended)
    posts = InFlight()  # POSTs being answered: a drain ends the sessions only after them (_drain)
    endpoints = {
        name: posts.counted(McpEndpoint(gateway, name, managers[name], tables[name], admission, shared[name]))
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
        gateway.files, files_admission(gateway, admission, tuple(managers)), lambda e: local_route(e, local)
    )  # POST /files, …
    routes += account_routes(gateway, lambda host: host_allowed(host, local))  # /oauth/connect|callback/<api>
    routes += gateway_admin_routes(gateway, loopback=is_loopback(host), provider=front.provider)  # /admin/
    routes += front_routes_of(front, lambda host: host_allowed(host, local), loopback=is_loopback(host))

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
        await admission.aclose()
        await front.aclose()
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
