"""JWT access tokens (RFC 9068) checked with PyJWT against the issuer's JWKS.

What each check stops (docs/security-access.md, "OAuth access tokens"):
- the algorithm is one of the asymmetric ones in `ALGORITHMS`, read from the token's header and then
  required of the key: `none` (an unsigned token) and every HMAC algorithm are refused before any key is
  looked at, so a token "signed" with the issuer's public key as an HMAC secret never verifies;
- the signature, against the JWKS key of the token's `kid` whose type fits the algorithm;
- `iss` is the configured issuer, equal as a whole (a token of another authorization server; PyJWT 2.10.0
  took a part of it);
- the header lists no `crit` extension: RFC 7515 says one the recipient does not understand makes the
  token invalid, and the gateway understands none (PyJWT before 2.12 let them through);
- `aud` names this resource (RFC 8707: a token issued for another API or MCP server);
- `exp` is required and not past, `nbf` and `iat` not in the future, each with 30 s of leeway.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Collection
from typing import Any, Protocol

import jwt
import orjson

from .._errors import TokenError
from ._claims import LEEWAY, TokenClaims, token_claims
from ._jwks import KEY_TYPES

ALGORITHMS = frozenset(KEY_TYPES)  # RS*, PS*, ES*, EdDSA; never none, never HS*
_SHOWN_ALG = frozenset({"none", "HS256", "HS384", "HS512"}) | ALGORITHMS  # names a message may repeat


def _why(error: jwt.PyJWTError) -> str:
    if isinstance(error, jwt.ExpiredSignatureError):
        return "it has expired (exp)"
    if isinstance(error, jwt.ImmatureSignatureError):
        return "it is not valid yet (nbf or iat in the future)"
    if isinstance(error, jwt.InvalidAudienceError):
        return "it was issued for another resource (aud does not name this MCP endpoint)"
    if isinstance(error, jwt.InvalidIssuerError):
        return "it was issued by another authorization server (iss)"
    if isinstance(error, jwt.MissingRequiredClaimError):
        return f"it has no `{error.claim}` claim"
    if isinstance(error, jwt.InvalidSignatureError):
        return "its signature does not verify"
    if isinstance(error, jwt.DecodeError):
        return "it is not a well-formed JWT"
    return "it does not pass the token checks"


class KeySource(Protocol):
    """Where a token's key comes from: the issuer's JWKS (`JwksCache`), or the gateway's own key."""

    async def key(self, kid: str | None, alg: str) -> Any: ...


class JwtVerifier:
    """Checks one issuer's JWT access tokens; `verify(token, resources)` is its claims or `token-invalid`
    (`token-check-unavailable` when the issuer's keys cannot be had)."""

    def __init__(self, issuer: str, jwks: KeySource, algorithms: frozenset[str] = ALGORITHMS) -> None:
        self.issuer = issuer
        self.jwks = jwks
        self.algorithms = algorithms

    async def verify(self, token: str, resources: Collection[str]) -> TokenClaims:
        return token_claims(await self.verify_raw(token, resources), self.issuer)

    async def verify_raw(self, token: str, resources: Collection[str]) -> dict[str, Any]:
        """The checked token's claims as it carries them."""
        if _critical(token):
            raise TokenError(
                "the token is refused: its header lists extensions (crit) this gateway does not use"
            )
        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError:
            raise TokenError("the token is not a well-formed JWT") from None
        alg = header.get("alg")
        if alg not in self.algorithms:
            shown = alg if isinstance(alg, str) and alg in _SHOWN_ALG else "its algorithm"
            raise TokenError(
                f"tokens signed with {shown} are not accepted; the issuer must sign with RS*, PS*, ES* "
                "or EdDSA"
            )
        kid = header.get("kid")
        key = await self.jwks.key(kid if isinstance(kid, str) else None, alg)
        try:
            claims = jwt.decode(
                token,
                key,
                algorithms=[alg],
                issuer=self.issuer,
                audience=list(resources),
                leeway=LEEWAY,
                options={"require": ["exp", "iss", "aud"]},
            )
        except jwt.PyJWTError as error:
            raise TokenError(f"the token is refused: {_why(error)}") from None
        if claims.get("iss") != self.issuer:  # whole, whatever the PyJWT release compares
            raise TokenError("the token is refused: it was issued by another authorization server (iss)")
        return claims


def _critical(token: str) -> bool:
    """Whether the token's header has `crit` (a header that cannot be read is for PyJWT to refuse)."""
    head = token.split(".", 1)[0]
    try:
        header = orjson.loads(base64.urlsafe_b64decode(head + "=" * (-len(head) % 4)))
    except (ValueError, binascii.Error):
        return False
    return isinstance(header, dict) and "crit" in header
