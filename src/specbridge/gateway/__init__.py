"""The MCP gateway: `specbridge serve` over stdio and Streamable HTTP, on the official `mcp` SDK.

gateway = Gateway(load_config("specbridge.yaml"), config_path="specbridge.yaml")
await serve_http(gateway, bind("127.0.0.1", 8765))      # or: await serve_stdio(gateway, "orders")

The names load on first use (module `__getattr__`): `specbridge approvals …` needs the approval gate and
the store, not the MCP SDK and the HTTP stack the rest of the gateway imports (about a second).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from ._admin import LOOPBACK_HOSTS as LOOPBACK_HOSTS
    from ._admin import admin_app as admin_app
    from ._admin import admin_routes as admin_routes
    from ._approving import ApprovalGate as ApprovalGate
    from ._approving import Desk as Desk
    from ._approving import approval_settings as approval_settings
    from ._approving import config_store as config_store
    from ._clients import key_sha256 as key_sha256
    from ._clients import new_key as new_key
    from ._gateway import DEFAULT_DEADLINE as DEFAULT_DEADLINE
    from ._gateway import ApiState as ApiState
    from ._gateway import Gateway as Gateway
    from ._http import base_url as base_url
    from ._http import bind as bind
    from ._http import endpoint_urls as endpoint_urls
    from ._http import event_loop_options as event_loop_options
    from ._http import http_app as http_app
    from ._http import serve_http as serve_http
    from ._local import is_loopback as is_loopback
    from ._logging import configure_logging as configure_logging
    from ._metrics import Metrics as Metrics
    from ._server import PAGE_SIZE as PAGE_SIZE
    from ._server import ApiServer as ApiServer
    from ._stdio import serve_stdio as serve_stdio
    from ._webhooks import WebhookSender as WebhookSender
    from ._webhooks import approval_route as approval_route
    from ._webhooks import running_webhooks as running_webhooks
    from ._webhooks import verify as verify_delivery

_LAZY = {
    "LOOPBACK_HOSTS": "._admin",
    "admin_app": "._admin",
    "admin_routes": "._admin",
    "ApprovalGate": "._approving",
    "Desk": "._approving",
    "approval_settings": "._approving",
    "config_store": "._approving",
    "key_sha256": "._clients",
    "new_key": "._clients",
    "DEFAULT_DEADLINE": "._gateway",
    "ApiState": "._gateway",
    "Gateway": "._gateway",
    "base_url": "._http",
    "bind": "._http",
    "endpoint_urls": "._http",
    "event_loop_options": "._http",
    "http_app": "._http",
    "serve_http": "._http",
    "is_loopback": "._local",
    "configure_logging": "._logging",
    "Metrics": "._metrics",
    "PAGE_SIZE": "._server",
    "ApiServer": "._server",
    "serve_stdio": "._stdio",
    "WebhookSender": "._webhooks",
    "approval_route": "._webhooks",
    "running_webhooks": "._webhooks",
    "verify_delivery": "._webhooks:verify",
}

__all__ = [
    "DEFAULT_DEADLINE",
    "LOOPBACK_HOSTS",
    "PAGE_SIZE",
    "ApiServer",
    "ApiState",
    "ApprovalGate",
    "Desk",
    "Gateway",
    "Metrics",
    "WebhookSender",
    "admin_app",
    "admin_routes",
    "approval_route",
    "approval_settings",
    "base_url",
    "bind",
    "config_store",
    "configure_logging",
    "endpoint_urls",
    "event_loop_options",
    "http_app",
    "is_loopback",
    "key_sha256",
    "new_key",
    "running_webhooks",
    "serve_http",
    "serve_stdio",
    "verify_delivery",
]

__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
