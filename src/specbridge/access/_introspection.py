"""Tokens checked by the authorization server itself (RFC 7662 introspection), for opaque tokens or an
issuer that revokes tokens before they expire.

The gateway signs in to the introspection endpoint with HTTP Basic (`introspection.client_id` and
`secret`). An answer is taken only when `active` is true, `exp` (if given) is not past, `iss` (if given)
is the configured issuer, and `aud` names this resource: the MCP specification requires the audience
check, so an authorization server that leaves `aud` out of its introspection answers cannot be used
this way. Answers are kept (by the token's SHA-256, never the token) until the token expires, for at
most five minutes, so a revoked token stops working within five minutes; refusals are kept a minute.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Collection

from .._errors import ConfigError, TokenError
from ..call import Lru
from ..config import IntrospectionConfig
from ._claims import LEEWAY, TokenClaims, token_claims
from ._fetch import Fetcher, unavailable

KEEP = 300.0  # an active answer is kept at most this long
KEEP_REFUSAL = 60.0
CACHE_SIZE = 10_000


class IntrospectionVerifier:
    def __init__(
        self,
        issuer: str,
        settings: IntrospectionConfig,
        fetch: Fetcher,
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.issuer = issuer
        self._settings = settings
        self._fetch = fetch
        self._clock = clock
        self._answers: Lru[bytes, tuple[TokenClaims | str, float]] = Lru(CACHE_SIZE)

    async def verify(self, token: str, resources: Collection[str]) -> TokenClaims:
        digest = hashlib.sha256(token.encode()).digest()
        now = self._clock()
        kept = self._answers.get(digest)
        if kept is None or kept[1] <= now:
            kept = await self._ask(token, now)
            self._answers.put(digest, kept)
        answer = kept[0]
        if isinstance(answer, str):
            raise TokenError(f"the token is refused: {answer}")
        if answer.expires_at is not None and answer.expires_at + LEEWAY <= now:
            raise TokenError("the token is refused: it has expired (exp)")
        if not answer.audiences & set(resources):
            raise TokenError(
                "the token is refused: it was issued for another resource (aud does not name this MCP "
                "endpoint)"
            )
        return answer

    async def _ask(self, token: str, now: float) -> tuple[TokenClaims | str, float]:
        url = self._settings.url
        try:
            secret = self._settings.secret.reveal()
        except ConfigError as error:
            raise unavailable(f"the introspection secret cannot be read: {error.message}") from None
        status, body = await self._fetch.post_form(
            url,
            f"the introspection endpoint {url}",
            {"token": token, "token_type_hint": "access_token"},
            (self._settings.client_id, secret),
        )
        if status != 200 or not isinstance(body, dict):
            raise unavailable(f"the introspection endpoint {url} answered {status}")
        if body.get("active") is not True:
            return "the authorization server says it is not active", now + KEEP_REFUSAL
        issuer = body.get("iss")
        if issuer is not None and issuer != self.issuer:
            return "it was issued by another authorization server (iss)", now + KEEP_REFUSAL
        not_before = body.get("nbf")
        if isinstance(not_before, int | float) and not_before - LEEWAY > now:
            return "it is not valid yet (nbf)", now + KEEP_REFUSAL
        claims = token_claims(body, self.issuer)
        if not claims.audiences:
            return "the introspection answer names no audience (aud)", now + KEEP_REFUSAL
        until = now + KEEP if claims.expires_at is None else min(now + KEEP, claims.expires_at + LEEWAY)
        return claims, until
