"""Reading `apis.<name>.oauth` (what the schema cannot say) and the rule for clients without a key.

Every URL the gateway fetches for token checks (the JWKS, the introspection endpoint, the issuer's
metadata when no `jwks_uri` is given) goes through the API's egress policy, so it is checked here the
way `base_url` is: a private or internal host needs `egress.allow`. Those documents are the trust root
of every token, so plain `http://` is refused too, except for a host listed under `egress.allow` (an
authorization server on loopback or inside the network).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from .._errors import ConfigError
from .._network import parse_allow
from ._auth import server_url
from ._model import ApiConfig, EgressConfig, IntrospectionConfig, OAuthConfig
from ._secrets import secret_reference

Fail = Callable[[list[str | int], str], ConfigError]


def oauth_settings(
    raw: Mapping[str, Any] | None,
    egress: EgressConfig,
    key: list[str | int],
    fail: Fail,
    base_dir: Path,
    front: str | None = None,
) -> OAuthConfig | None:
    """`apis.<name>.oauth` as the model (None when not set), its URLs checked against the API's egress
    policy; an issuer that is `front` (the gateway's own `oauth_server`) is checked here, not fetched."""
    if raw is None:
        return None
    allow = [parse_allow(entry) for entry in egress.allow]

    def fetched(url: str, at: list[str | int]) -> str:
        return server_url(url, allow, at, fail, trusted="token checks trust what it answers")

    issuer = raw["issuer"].strip()
    jwks_uri = raw.get("jwks_uri")
    given = raw.get("introspection")
    own = front is not None and issuer.rstrip("/") == front
    if own and (jwks_uri is not None or given is not None):
        raise fail([*key, "issuer"], "names this gateway's `oauth_server`, whose tokens it checks itself")
    if jwks_uri is not None and given is not None:
        raise fail([*key, "jwks_uri"], "and `introspection` exclude each other: tokens are checked one way")
    introspection = None
    if given is not None:
        introspection = IntrospectionConfig(
            url=fetched(given["url"], [*key, "introspection", "url"]),
            client_id=given["client_id"].strip(),
            secret=secret_reference(given["secret"], base_dir),
        )
    elif jwks_uri is not None:
        jwks_uri = fetched(jwks_uri, [*key, "jwks_uri"])
    elif own:
        issuer = issuer.rstrip("/")
    else:
        fetched(issuer, [*key, "issuer"])  # its metadata is fetched to find the JWKS
    audience = raw.get("audience")
    if audience is not None:
        audience = audience.strip()
        parts = urlsplit(audience)
        if parts.query or parts.fragment or parts.username is not None or not parts.hostname:
            raise fail([*key, "audience"], "must be a URL without user name, query or fragment")
    return OAuthConfig(
        issuer=issuer,
        audience=audience,
        jwks_uri=jwks_uri,
        introspection=introspection,
        scopes_supported=tuple(dict.fromkeys(raw.get("scopes_supported") or ())),
        allow_unknown_clients=bool(raw.get("allow_unknown_clients")),
        front=own,
    )


def check_keyless_client(
    name: str, apis: tuple[str, ...], known: Mapping[str, ApiConfig], fail: Fail
) -> None:
    """A client without `key_sha256` signs in only with OAuth tokens, so one of its APIs must take them."""
    if not any(known[api].oauth is not None for api in apis if api in known):
        raise fail(
            ["clients", name, "key_sha256"],
            "is missing, and none of this client's `apis` takes OAuth tokens (`apis.<name>.oauth`); "
            "without either it could never connect (`specbridge keys new`)",
        )
