"""The MCP gateway: `specbridge serve` over stdio and Streamable HTTP, on the official `mcp` SDK.

gateway = Gateway(load_config("specbridge.yaml"), config_path="specbridge.yaml")
await serve_http(gateway, bind("127.0.0.1", 8765))      # or: await serve_stdio(gateway, "orders")

The names load on first use (module `__getattr__`): `specbridge serve --help` needs `bind`, not the MCP
SDK and the HTTP stack the rest of the gateway imports (about a second).

Modules:

- `_gateway`: `Gateway`, the state it serves (one `Snapshot`, swapped whole on reload and taken once per
  request), and reloading it while serving.
- `_snapshot`: `Snapshot` and `ApiState`, the values a reload replaces.
- `_loading`: an API's tools made from its document off the event loop, from the conversion cache when
  the file is unchanged.
- `_reads`: a reload's documents at URLs, read apart from the reload.
- `_reloaded`: what a config reload changed, said once in the log and counted.
- `_changes`: a served file's change marker and digest.
- `_rules`: a config's access rules applied when it is served.
- `_server`: one SDK low-level `Server` per API: `tools/list`, `tools/call` as a `service.CallRequest`,
  the error mapping.
- `_listing`: one caller's `tools/list`, kept per `service.ToolRules`.
- `_mcp`: a tool as one client lists it, a `CallResult` as a `CallToolResult`.
- `_params`: malformed params as JSON-RPC -32602 (`params-invalid`).
- `_search`, `_modes`, `_code`: search mode's two tools, which of search and code mode an API gets, and
  the MCP side of code mode.
- `_search_tools`: search mode's two tools as listed (no MCP SDK: the stdio front lists them too).
- `_toolsets`: toolsets, one endpoint of tools picked from several APIs.
- `_toolset_code`: code mode over a toolset: what a caller reaches, each call on its own API.
- `_elicit`: `approvals.by: client`, the service's `Question` put to the client's user.
- `_accounts`: per-client accounts: `account-not-connected` as URL-mode elicitation; the connect pages.
- `_tasks`: the Tasks extension for 2026-07-28 clients that declare it.
- `_handles`: how long the handles a tool hands out last, said in its description.
- `_http`: Streamable HTTP: each API's endpoint, `/healthz`, `/metrics`, the routes beside them.
- `_edge`: the checks before any route answers: Origin, Host, the one admission step.
- `_protected`: the resource a token must name, and the Protected Resource Metadata routes.
- `_local`: which bound addresses count as loopback; what may not be served off loopback.
- `_admin`, `_oauth_front`: the admin API and page, and the gateway's own authorization server, as the
  gateway serves them.
- `_sessions`: how many sessions each client holds open, in one process.
- `_shared_sessions`: handshake-era sessions in the store, served by any instance (`sessions: store`).
- `_stdio`, `_stdin`: MCP over stdio, stdin read by a daemon thread so a stop never waits for a read.
- `_stdio_front`, `_answers`: the stdio front: a start's first answers, recorded at an earlier start.
- `_first_answers`: the front's own first answers, made from the conversion of a search-mode API.
- `_drain`: stopping on SIGTERM without dropping work.
- `_sockets`, `_cork`: the listening socket and event loop; one write per answer.
- `_metrics`, `_tracing`, `_outages`: Prometheus text, one span per MCP request, failures of every call
  of an API said once.
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
