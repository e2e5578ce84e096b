"""The HTTP edge's checks before any route answers: the browser's `Origin`, the `Host` a loopback bind
serves (the SDK's DNS-rebinding rule, for our other routes too), and the one admission step
(`access.Admission`) as the routes beside the MCP endpoints take it (`/files`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from urllib.parse import urlsplit

from mcp.server.transport_security import TransportSecuritySettings
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from .._errors import ErrorCode
from .._logging import log_event
from ..access import Admission, Identity, Refusal, refused
from ..config import ApiConfig
from ._gateway import Gateway
from ._local import LOCAL_HOSTS, is_loopback
from ._protected import resource_of

Endpoint = Callable[[Request], Awaitable[Response]]


def origin_allowed(origin: str | None) -> bool:
    """No Origin (not a browser, or same-origin) or a localhost origin."""
    if not origin:
        return True
    parts = urlsplit(origin)
    return parts.scheme in ("http", "https") and (parts.hostname or "") in LOCAL_HOSTS


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
            return refused(
                421, ErrorCode.HOST_REFUSED, "this Host is not served here; use the gateway's own address"
            )
        if not origin_allowed(request.headers.get("origin")):
            log_event("origin refused", path=request.url.path, status=403)
            return refused(403, ErrorCode.ORIGIN_REFUSED, "browser origins other than localhost are refused")
        return await endpoint(request)

    return guarded


def files_admission(
    gateway: Gateway, admission: Admission, served: tuple[str, ...]
) -> Callable[[Request], Awaitable[Identity | Refusal]]:
    """`/files`'s admission: who the request would be at an MCP endpoint of the config served now."""

    async def admit(request: Request) -> Identity | Refusal:
        def resources(api: ApiConfig) -> tuple[str, ...]:
            paths = [f"/{api.name}/mcp"] + (["/mcp"] if len(served) == 1 else [])
            return tuple(dict.fromkeys(resource_of(request.scope, api, path) for path in paths))

        return await admission.anywhere(request.headers, gateway.snapshot.config, resources)

    return admit


def host_guard(host_allowed: Callable[[str | None], bool]) -> Callable[[Endpoint], Endpoint]:
    """Put around a page's endpoint: a request for a Host the gateway does not serve gets 421."""

    def guard(endpoint: Endpoint) -> Endpoint:
        async def guarded(request: Request) -> Response:
            if not host_allowed(request.headers.get("host")):
                log_event("host refused", path=request.url.path, status=421)
                return PlainTextResponse(
                    f"[{ErrorCode.HOST_REFUSED}] this Host is not served here; use the gateway's own address",
                    status_code=421,
                )
            return await endpoint(request)

        return guarded

    return guard
