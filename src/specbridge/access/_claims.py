"""What the gateway keeps of a checked access token: never the token, only who and what it allows."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

LEEWAY = 30.0  # seconds of clock difference allowed on exp, nbf and iat
MAX_TOKEN_LENGTH = 16 * 1024  # longer bearer values are refused before any parsing


@dataclass(frozen=True, slots=True)
class TokenClaims:
    """A valid token's claims as later steps use them: `client_id` then `sub` name the client;
    `scopes` may narrow what it sees; `expires_at` (epoch seconds) bounds how long it is cached."""

    issuer: str
    subject: str | None
    client_id: str | None
    scopes: frozenset[str]
    audiences: frozenset[str]
    expires_at: float | None
    family: str | None = None  # a token of the gateway's own `oauth_server`: its sign-in (revocable)
    client_named: bool = False  # `client_id` names the gateway's client itself: never mapped by `sub`


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def scopes_of(claims: Mapping[str, Any]) -> frozenset[str]:
    """`scope` (RFC 9068, RFC 7662: space-separated) or `scp` (a list or a string, as some issuers do)."""
    value = claims.get("scope", claims.get("scp"))
    if isinstance(value, str):
        return frozenset(value.split())
    if isinstance(value, list):
        return frozenset(item for item in value if isinstance(item, str))
    return frozenset()


def audiences_of(claims: Mapping[str, Any]) -> frozenset[str]:
    value = claims.get("aud")
    if isinstance(value, str):
        return frozenset({value})
    if isinstance(value, list):
        return frozenset(item for item in value if isinstance(item, str))
    return frozenset()


def token_claims(claims: Mapping[str, Any], issuer: str) -> TokenClaims:
    expires = claims.get("exp")
    return TokenClaims(
        issuer=issuer,
        subject=_text(claims.get("sub")),
        client_id=_text(claims.get("client_id")),
        scopes=scopes_of(claims),
        audiences=audiences_of(claims),
        expires_at=float(expires)
        if isinstance(expires, int | float) and not isinstance(expires, bool)
        else None,
    )


def front_claims(claims: Mapping[str, Any], issuer: str) -> TokenClaims:
    """A checked token of the gateway's own `oauth_server`: `sub` is the person, `sbc` the client the
    operator mapped them to (`oauth_server.users`), `sid` their sign-in."""
    found = token_claims(claims, issuer)
    return TokenClaims(
        issuer=issuer,
        subject=found.subject,
        client_id=_text(claims.get("sbc")),
        scopes=found.scopes,
        audiences=found.audiences,
        expires_at=found.expires_at,
        family=_text(claims.get("sid")),
        client_named=True,
    )


def canonical_resource(url: str) -> str:
    """A resource URL compared as RFC 8707 and the MCP specification describe it: scheme and host in
    lower case, no trailing slash on a bare origin."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url
    host, slash, path = rest.partition("/")
    path = slash + path
    return f"{scheme.lower()}://{host.lower()}{'' if path == '/' else path}"
