"""The admin API and the approvals page as routes for the gateway's app, or as an app of their own."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute

from ..access import OidcProvider
from ..config import AdminConfig, OAuthServerConfig
from ..service import Desk
from ..store import Store
from ._api import AdminApi
from ._facts import ToolLookup, no_lookup
from ._guard import LOOPBACK_HOSTS
from ._html import redirect
from ._oidc import AdminSignIn
from ._page import AdminPage
from ._sessions import DEFAULT_SESSION_TTL
from ._stored_sessions import StoredSessions


async def _to_list(request: Request) -> Response:
    return redirect("/admin/")


def admin_routes(
    desk: Desk,
    admins: Mapping[str, AdminConfig],
    *,
    allowed_hosts: Sequence[str] = LOOPBACK_HOSTS,
    page: bool = True,
    session_ttl: float | None = None,
    tools: ToolLookup = no_lookup,
    store: Callable[[], Awaitable[Store]] | None = None,
    signin: Callable[[], OAuthServerConfig | None] | None = None,
    provider: Callable[[], OidcProvider] | None = None,
) -> list[BaseRoute]:
    """The admin API's routes, and the web page's unless `page=False`, to add to the gateway's app.
    `admins` is read on every request (the gateway passes the admins of the config it serves now);
    `tools(api, tool)` tells the page what a tool's call does (the gateway's current documents);
    `store` (the gateway's) keeps the page's sign-ins, so every instance on it knows them; without it,
    this process does. `signin` (the config's `oauth_server` as served now) offers sign-in with OpenID
    Connect beside admin keys (`_oidc`; it needs `store` and `provider`, the provider's relying party)."""
    api = AdminApi(desk, admins, allowed_hosts)
    if not page:
        return api.routes()
    ttl = DEFAULT_SESSION_TTL if session_ttl is None else session_ttl
    sessions = StoredSessions(store, ttl) if store is not None else None
    oidc = None
    if signin is not None and store is not None and provider is not None:
        oidc = AdminSignIn(signin, store, admins, provider)
    view = AdminPage(desk, admins, allowed_hosts, session_ttl=ttl, tools=tools, sessions=sessions, oidc=oidc)
    return api.routes({"list": _to_list, "show": view.approval}) + view.routes()


def admin_app(
    desk: Desk,
    admins: Mapping[str, AdminConfig],
    *,
    allowed_hosts: Sequence[str] = LOOPBACK_HOSTS,
    page: bool = True,
    session_ttl: float | None = None,
    tools: ToolLookup = no_lookup,
) -> Starlette:
    """The admin API (and page) as an app of its own; the gateway adds `admin_routes` to its app."""
    return Starlette(
        routes=admin_routes(
            desk, admins, allowed_hosts=allowed_hosts, page=page, session_ttl=session_ttl, tools=tools
        )
    )
