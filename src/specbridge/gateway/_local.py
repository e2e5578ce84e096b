"""Which bound addresses count as local (loopback): used by the bind check, reloads and the HTTP guards."""

from __future__ import annotations

import ipaddress
from typing import TYPE_CHECKING

from .._errors import ErrorCode, SpecbridgeError

if TYPE_CHECKING:
    from ..config import Config

LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})


def is_loopback(host: str) -> bool:
    if host.strip("[]") in LOCAL_HOSTS:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def exposure_refusal(host: str, config: Config) -> SpecbridgeError | None:
    """Why `config` may not be served on `host` (None when it may): off loopback, every API needs client
    keys or OAuth, and an API with OAuth needs `oauth.audience` (a request's Host header, which a caller
    chooses, cannot say which URL a token must be issued for)."""
    if is_loopback(host):
        return None
    oauth = [api for api in config.apis.values() if api.oauth is not None]
    if not config.clients and len(oauth) < len(config.apis):
        return SpecbridgeError(
            f"the gateway is bound to {host} and the config has no clients; without client keys (or "
            "`oauth:` on every API) it may only serve on a loopback address",
            code=ErrorCode.SERVE_UNSAFE_BIND,
        )
    for api in oauth:
        if api.oauth is not None and not api.oauth.audience:
            return SpecbridgeError(
                f"the gateway is bound to {host} and apis.{api.name}.oauth has no `audience`; off "
                "loopback, set it to the URL clients connect to (tokens must name it in `aud`)",
                code=ErrorCode.SERVE_UNSAFE_BIND,
            )
    return None
