"""The MCP gateway: `specbridge serve` over stdio and Streamable HTTP, on the official `mcp` SDK.

gateway = Gateway(load_config("specbridge.yaml"), config_path="specbridge.yaml")
await serve_http(gateway, bind("127.0.0.1", 8765))      # or: await serve_stdio(gateway, "orders")

The names load on first use (module `__getattr__`): `specbridge serve --help` needs `bind`, not the MCP
SDK and the HTTP stack the rest of the gateway imports (about a second).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from ._gateway import DEFAULT_DEADLINE as DEFAULT_DEADLINE
    from ._gateway import ApiState as ApiState
    from ._gateway import Gateway as Gateway
    from ._http import endpoint_urls as endpoint_urls
    from ._http import http_app as http_app
    from ._http import serve_http as serve_http
    from ._local import exposure_refusal as exposure_refusal
    from ._local import is_loopback as is_loopback
    from ._mcp import to_mcp_result as to_mcp_result
    from ._metrics import Metrics as Metrics
    from ._server import PAGE_SIZE as PAGE_SIZE
    from ._server import ApiServer as ApiServer
    from ._sockets import base_url as base_url
    from ._sockets import bind as bind
    from ._sockets import event_loop_options as event_loop_options
    from ._stdio import serve_stdio as serve_stdio
    from ._stdio_front import Handover as Handover
    from ._stdio_front import stdio_front as stdio_front


__getattr__, __dir__ = lazy_exports(__name__)
