"""The admin API and the approvals page as routes for the gateway's app, or as an app of their own."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from starlette.applications import Starlette
from starlette.routing import BaseRoute

from ..config import AdminConfig
from ..service import Desk
from ._api import AdminApi
from ._guard import LOOPBACK_HOSTS
from ._page import DEFAULT_SESSION_TTL, AdminPage


def admin_routes(
    desk: Desk,
    admins: Mapping[str, AdminConfig],
    *,
    allowed_hosts: Sequence[str] = LOOPBACK_HOSTS,
    page: bool = True,
    session_ttl: float | None = None,
) -> list[BaseRoute]:
    """The admin API's routes, and the web page's unless `page=False`, to add to the gateway's app."""
    routes = AdminApi(desk, admins, allowed_hosts).routes()
    if page:
        ttl = DEFAULT_SESSION_TTL if session_ttl is None else session_ttl
        routes += AdminPage(desk, admins, allowed_hosts, session_ttl=ttl).routes()
    return routes


def admin_app(
    desk: Desk,
    admins: Mapping[str, AdminConfig],
    *,
    allowed_hosts: Sequence[str] = LOOPBACK_HOSTS,
    page: bool = True,
    session_ttl: float | None = None,
) -> Starlette:
    """The admin API (and page) as an app of its own; the gateway adds `admin_routes` to its app."""
    return Starlette(
        routes=admin_routes(desk, admins, allowed_hosts=allowed_hosts, page=page, session_ttl=session_ttl)
    )
