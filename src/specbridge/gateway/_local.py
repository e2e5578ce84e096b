"""Which bound addresses count as local (loopback): used by the bind check, reloads and the HTTP guards."""

from __future__ import annotations

import ipaddress
from typing import TYPE_CHECKING

from .._errors import ErrorCode, SpecbridgeError
from ..access import open_to_anyone

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
    """Why `config` may not be served on `host` (None when it may): off loopback, no route may let
    anybody in, so no API's MCP endpoint may (`access.open_to_anyone`: the same rule by which `/files`
    and every other route beside the endpoints decide whether a request without a credential is let
    in: a config whose every API takes OAuth tokens, with or without clients, is closed everywhere);
    and an API with OAuth needs `oauth.audience` (a request's Host header, which a caller chooses,
    cannot say which URL a token must be issued for)."""
    if is_loopback(host):
        return None
    oauth = [api for api in config.apis.values() if api.oauth is not None]
    if any(open_to_anyone(config, api) for api in config.apis.values()):
        return SpecbridgeError(
            f"the gateway is bound to {host} and the config has no clients; without client keys (or "
            "`oauth:` on every API) it may only serve on a loopback address",
            code=ErrorCode.SERVE_UNSAFE_BIND,
        )
    front = config.oauth_server
    if front is not None and not front.issuer.startswith("https://"):
        return SpecbridgeError(
            f"the gateway is bound to {host} and oauth_server.issuer is not https://; off loopback its "
            "sign-in pages, codes and tokens must travel over TLS (put the gateway behind it and name "
            "the https:// address)",
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
