"""Where an OAuth token's resource comes from, and the Protected Resource Metadata (RFC 9728) routes.

A token must be issued for the URL the client connects to (RFC 8707): `apis.<name>.oauth.audience`
when set, else the request's own origin and path. The second is only trusted on a loopback bind, where
the SDK's and our Host checks keep the origin local; anywhere else `audience` is required
(`Gateway.unsafe`), so a Host header cannot make a token of another server valid here. On loopback the
origin's port is always the one the gateway listens on, whatever port the Host header names: a token
another local MCP server was issued (`Host: localhost:<its port>`) names another resource.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.types import Scope

from ..access import canonical_resource, resource_metadata
from ..config import ApiConfig
from ._gateway import Gateway


def request_origin(scope: Scope) -> str:
    """`scheme://host[:port]` of a request: the host its Host header names, on the port the gateway
    listens on (the Host header's own port only when it is that one)."""
    scheme = scope.get("scheme", "http")
    server = scope.get("server") or ("localhost", None)
    host = Headers(scope=scope).get("host")
    if not host:
        return f"{scheme}://{server[0]}" + ("" if server[1] is None else f":{server[1]}")
    bound = server[1]
    if bound is None:  # a Unix socket: nothing else listens on its address
        return f"{scheme}://{host}"
    name, port = _split_host(host)
    default = 443 if scheme == "https" else 80
    if (port if port is not None else default) == bound:
        return f"{scheme}://{host}"
    return f"{scheme}://{name}" + ("" if bound == default else f":{bound}")


def _split_host(host: str) -> tuple[str, int | None]:
    """A Host header's name (an IPv6 literal with its brackets) and port (None when it names none or
    one that is no port)."""
    try:
        port = urlsplit(f"//{host}").port
    except ValueError:
        port = None
    name = host[: host.index("]") + 1] if host.startswith("[") and "]" in host else host.rsplit(":", 1)[0]
    return name, port


def resource_of(scope: Scope, api: ApiConfig, path: str) -> str:
    """The resource an OAuth token must be issued for: `oauth.audience`, else the URL of `path` on the
    origin the request came to (only served on loopback, where the Host check keeps that origin local;
    see `Gateway.unsafe`)."""
    if api.oauth is not None and api.oauth.audience:
        return canonical_resource(api.oauth.audience)
    return canonical_resource(request_origin(scope) + path)


def protected_resource_endpoint(
    gateway: Gateway, served: tuple[str, ...]
) -> Callable[[Request], Awaitable[Response]]:
    """RFC 9728 metadata of each API with `oauth:`, at the well-known name of each of its MCP URLs
    (`/<api>/mcp`; `/mcp` and the bare well-known name when one API is served; the path of its
    `oauth.audience`)."""

    def find(path: str, apis: Mapping[str, ApiConfig]) -> tuple[ApiConfig, str] | None:
        only = served[0] if len(served) == 1 else None
        if path in ("", "/mcp") and only is not None:
            return apis[only], "/mcp"
        name = path.removeprefix("/").removesuffix("/mcp")
        if path == f"/{name}/mcp" and name in served:
            return apis[name], path
        for api in (apis[name] for name in served):
            if api.oauth is not None and api.oauth.audience and urlsplit(api.oauth.audience).path == path:
                return api, path
        return None

    async def metadata(request: Request) -> Response:
        raw = request.path_params.get("path")
        found = find("" if raw is None else "/" + raw.rstrip("/"), gateway.snapshot.config.apis)
        if found is None or found[0].oauth is None:
            return PlainTextResponse("Not Found", status_code=404)  # as for any path not served
        api, path = found
        return JSONResponse(
            resource_metadata(resource_of(request.scope, api, path), found[0].oauth),
            headers={"Cache-Control": "public, max-age=3600", "Access-Control-Allow-Origin": "*"},
        )

    return metadata
