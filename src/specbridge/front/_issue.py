"""The tokens the front issues: short-lived access tokens the resource server already checks, and
refresh tokens that rotate.

- An access token is a JWT (RFC 9068, `typ: at+jwt`) signed EdDSA with the key derived from
  `store_key` (`access.front_keys`): `iss` the front, `aud` the MCP resource it was asked for (RFC
  8707), `sub` the person at the sign-in provider, `client_id` the MCP client, `sbc` the `clients.<id>`
  the operator mapped the person to, `sid` the sign-in, `scope`, and `exp` `access_token_ttl` after
  `iat`. Any instance on the store checks it with the same key; `sid` is looked up at most every 30 s
  (a revoked sign-in ends its tokens there).
- A refresh token is 256 random bits, kept in the store by its SHA-256 with its sign-in; using it takes
  it (once: a second use finds only its tombstone, and revokes the whole sign-in, RFC 9700 §4.14.2) and
  hands out a new one. Before each refresh the person's claims, as they were at sign-in, are matched
  against the operator's rules as they are now: a person no longer mapped (or mapped to another client)
  gets no new token.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

import jwt

from ..access import front_keys
from ..config import Config, OAuthServerConfig, first_match
from ._records import Json, Records, digest

REFRESH_BYTES = 32


class Refused(Exception):
    """A token request refused with an OAuth error (RFC 6749 §5.2); `error` is its code."""

    def __init__(self, error: str, description: str, status: int = 400) -> None:
        super().__init__(description)
        self.error = error
        self.description = description
        self.status = status


class Issuer:
    def __init__(self, records: Records, config: Callable[[], Config]) -> None:
        self.records = records
        self._config = config
        self.on_revoke: list[Callable[[str], None]] = []  # told of each sign-in revoked here

    @property
    def settings(self) -> OAuthServerConfig:
        settings = self._config().oauth_server
        assert settings is not None  # the routes are served only with `oauth_server`
        return settings

    async def sign_in(self, grant: Json) -> dict[str, Any]:
        """A new sign-in (`grant`: client, person, API, resource, scope, the mapped client, the claims
        the rules read) and its first tokens."""
        family = secrets.token_urlsafe(18)
        now = self.records.clock()
        await self.records.put("family", family, grant, now + self.settings.refresh_token_ttl)
        return await self._tokens(family, grant)

    async def refresh(self, token: str, client_id: str, scope: str | None) -> dict[str, Any]:
        """The tokens a refresh token buys once (see the module)."""
        key = digest(token)
        record = await self.records.take("refresh", key)
        if record is None:
            used = await self.records.get("used", key)
            if used is not None:  # a refresh token used twice: whoever holds it, the sign-in ends
                await self.revoke_family(str(used["family"]))
            raise Refused("invalid_grant", "the refresh token is unknown, used or expired")
        family = str(record["family"])
        now = self.records.clock()
        await self.records.put("used", key, {"family": family}, now + self.settings.refresh_token_ttl)
        grant = await self.records.get("family", family)
        if grant is None:
            raise Refused("invalid_grant", "the sign-in of this refresh token was revoked or has ended")
        if grant["client_id"] != client_id:
            await self.revoke_family(family)
            raise Refused("invalid_grant", "the refresh token was issued to another client")
        if first_match(self.settings.users, grant["claims"]) != grant["client"]:
            await self.revoke_family(family)
            raise Refused("invalid_grant", "the person is no longer mapped to this client; sign in again")
        if scope is not None:
            asked = set(scope.split())
            if not asked <= set(grant["scope"].split()):
                raise Refused("invalid_scope", "a refresh may only narrow the scope of the sign-in")
            grant = {**grant, "scope": " ".join(sorted(asked))}
        await self.records.put("family", family, grant, now + self.settings.refresh_token_ttl)
        return await self._tokens(family, grant)

    async def _tokens(self, family: str, grant: Json) -> dict[str, Any]:
        settings = self.settings
        now = self.records.clock()
        refresh = secrets.token_urlsafe(REFRESH_BYTES)
        await self.records.put(
            "refresh", digest(refresh), {"family": family}, now + settings.refresh_token_ttl
        )
        return {
            "access_token": self.access_token(family, grant, now),
            "token_type": "Bearer",
            "expires_in": int(settings.access_token_ttl),
            "refresh_token": refresh,
            "scope": grant["scope"],
        }

    def access_token(self, family: str, grant: Json, now: float) -> str:
        settings = self.settings
        keys = front_keys(settings.store_key)
        claims = {
            "iss": settings.issuer,
            "aud": grant["resource"],
            "sub": grant["person"],
            "client_id": grant["client_id"],
            "sbc": grant["client"],
            "sid": family,
            "scope": grant["scope"],
            "iat": int(now),
            "nbf": int(now),
            "exp": int(now + settings.access_token_ttl),
            "jti": secrets.token_urlsafe(12),
        }
        headers = {"kid": keys.kid, "typ": "at+jwt"}
        return jwt.encode(claims, keys.private, algorithm="EdDSA", headers=headers)

    async def revoke_family(self, family: str) -> None:
        await self.records.take("family", family)
        for told in self.on_revoke:
            told(family)

    async def revoke(self, token: str, client_id: str) -> None:
        """RFC 7009: a refresh token or an access token of `client_id` ends its whole sign-in; anything
        else (unknown, another client's) changes nothing, and the answer is the same."""
        record = await self.records.get("refresh", digest(token))
        family = str(record["family"]) if record is not None else None
        if family is None:
            family = self._family_of_access_token(token)
        if family is None:
            return
        grant = await self.records.get("family", family)
        if grant is not None and grant["client_id"] == client_id:
            await self.revoke_family(family)

    def _family_of_access_token(self, token: str) -> str | None:
        settings = self.settings
        keys = front_keys(settings.store_key)
        try:
            claims = jwt.decode(
                token, keys.public, algorithms=["EdDSA"], issuer=settings.issuer,
                options={"verify_aud": False, "verify_exp": False},
            )  # fmt: skip
        except jwt.PyJWTError:
            return None
        family = claims.get("sid")
        return family if isinstance(family, str) else None
