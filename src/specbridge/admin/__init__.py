"""Where people answer approvals over HTTP: the admin JSON API and the server-rendered page."""

from __future__ import annotations

from ._guard import LOOPBACK_HOSTS as LOOPBACK_HOSTS
from ._page import AdminPage as AdminPage
from ._routes import admin_app as admin_app
from ._routes import admin_routes as admin_routes
