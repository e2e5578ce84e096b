"""One API as an OAuth 2.1 resource server, beside the client keys.

`ResourceServer.admit` decides one HTTP request to an MCP endpoint of an API with `oauth:`:

1. nothing presented: 401 `token-missing`, with the challenge that leads an MCP client to the metadata;
2. a client key (`Authorization: Bearer <key>` or `X-Api-Key`) of a `clients.<id>`: that client, as on
   an API without `oauth:`;
3. otherwise the bearer value is an access token: checked (JWT or introspection), 401 `token-invalid`
   with `error="invalid_token"` when it fails, 503 `token-check-unavailable` when the authorization
   server cannot be asked; then every scope of `scopes_supported` must be granted (403
   `token-scope-insufficient`, `error="insufficient_scope"` with the scopes to ask for: those, then
   the scopes of `oauth.scopes`, which give tools, so a client asks for them too);
4. the token's client: `clients.<client_id>`, else `clients.<sub>` — its bindings and secrets apply as
   for a key client, and it must list the API (403 `api-forbidden`); a token of no known client is 403
   `token-client-unknown` unless `allow_unknown_clients: true` (then the API's defaults).

Checked JWTs are kept by their SHA-256 (never the token) until they expire, for at most five minutes,
so a token's second request costs a hash and a lookup. An API whose `oauth.issuer` is the gateway's own
`oauth_server` (`settings.front`) checks its tokens with the key derived from `store_key` (EdDSA only),
takes them as the client they name (`sbc`, never `sub`), and asks whether their sign-in (`sid`) stands
when first seen and then every 30 seconds (`alive`; a revocation on this instance applies at once). The token itself goes nowhere: not into the
identity, not into a log line, not upstream.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Awaitable, Callable, Mapping

import httpx

from .._errors import ErrorCode, TokenError
from .._logging import Outage, log_event
from ..call import Lru
from ..config import ApiConfig, ClientConfig, OAuthConfig
from ._claims import LEEWAY, MAX_TOKEN_LENGTH, TokenClaims, front_claims
from ._fetch import Fetcher, unavailable
from ._front_key import ALGORITHM as FRONT_ALGORITHM
from ._front_key import FrontKeySource
from ._identity import Identity, Presented
from ._introspection import IntrospectionVerifier
from ._jwks import JwksCache
from ._jwt import JwtVerifier
from ._keys import KEY_PREFIX, Refusal, find_client
from ._metadata import challenge

FRONT_ALGORITHMS = frozenset({FRONT_ALGORITHM})
KEEP = 300.0
KEEP_FRONT = 30.0  # a token of the gateway's own authorization server: its sign-in asked again after this
CACHE_SIZE = 10_000
RETRY_AFTER = "10"
Alive = Callable[[str], Awaitable[bool]]  # whether a sign-in of the front (`sid`) was not revoked


class ResourceServer:
    def __init__(
        self,
        settings: OAuthConfig,
        allow: tuple[str, ...] = (),
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        clock: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
        alive: Alive | None = None,
    ) -> None:
        self.settings = settings
        self.fetch = Fetcher(allow, transport=transport)
        self._clock = clock
        self._alive = alive
        self.verifier: JwtVerifier | IntrospectionVerifier
        if settings.front:  # the gateway's own `oauth_server`: its key, from store_key; EdDSA only
            self.verifier = JwtVerifier(settings.issuer, FrontKeySource(settings.front_key), FRONT_ALGORITHMS)
        elif settings.introspection is not None:
            self.verifier = IntrospectionVerifier(
                settings.issuer, settings.introspection, self.fetch, clock=clock
            )
        else:
            jwks = JwksCache(self.fetch, issuer=settings.issuer, jwks_uri=settings.jwks_uri, clock=monotonic)
            self.verifier = JwtVerifier(settings.issuer, jwks)
        self._checked: Lru[bytes, tuple[TokenClaims, float]] = Lru(CACHE_SIZE)
        self._outage = Outage(  # every token of the API refused: a warning once, a line when it comes back
            "token check unavailable",
            fix="every access token of this API is answered 503 until the authorization server (its JWKS "
            "or introspection endpoint) answers again; client keys still work",
            recovered="token check available again",
        )
        self._ended: Lru[str, bool] = Lru(CACHE_SIZE)  # front sign-ins this process saw revoked

    async def check(self, token: str, resource: str) -> TokenClaims:
        """The claims of a valid token for `resource`; `TokenError` otherwise."""
        if len(token) > MAX_TOKEN_LENGTH:
            raise TokenError(f"the token is refused: it is longer than {MAX_TOKEN_LENGTH // 1024} KB")
        resources = (resource,)
        if isinstance(self.verifier, IntrospectionVerifier):
            return await self.verifier.verify(token, resources)  # keeps its own answers
        digest = hashlib.sha256(token.encode()).digest()
        now = self._clock()
        kept = self._checked.get(digest)
        if kept is not None and kept[1] > now:
            claims = kept[0]
            if claims.family is not None and self._ended.get(claims.family):
                raise TokenError("the token is refused: its sign-in was revoked or has ended")
            if resource in claims.audiences:
                return claims
        keep = KEEP
        if self.settings.front:
            claims = front_claims(await self.verifier.verify_raw(token, resources), self.settings.issuer)
            await self._signed_in(claims)
            keep = KEEP_FRONT
        else:
            claims = await self.verifier.verify(token, resources)
        expires = claims.expires_at if claims.expires_at is not None else now
        self._checked.put(digest, (claims, min(now + keep, expires + LEEWAY)))
        return claims

    def ended(self, family: str) -> None:
        """A front sign-in revoked here: its tokens kept as checked are refused at once (other
        instances ask the store again within `KEEP_FRONT`)."""
        self._ended.put(family, True)

    async def _signed_in(self, claims: TokenClaims) -> None:
        """A front token counts only while its sign-in stands (not revoked, not signed out)."""
        if claims.family is None:
            raise TokenError("the token is refused: it names no sign-in (sid)")
        if self._alive is None:
            raise unavailable("this gateway cannot look its sign-ins up")
        if not await self._alive(claims.family):
            raise TokenError("the token is refused: its sign-in was revoked or has ended")

    async def admit(
        self,
        headers: Mapping[str, str],
        clients: Mapping[str, ClientConfig],
        api: ApiConfig,
        resource: str,
    ) -> Identity | Refusal:
        """Who this request comes from, or why it is refused (see the module's docstring)."""
        settings = self.settings
        scopes = settings.advertised_scopes  # what a challenge tells a client to ask for
        authorization = headers.get("authorization", "")
        scheme, _, value = authorization.partition(" ")
        bearer = value.strip() if scheme.lower() == "bearer" else ""
        key = bearer or headers.get("x-api-key", "").strip()
        if not key:
            return Refusal(
                401,
                ErrorCode.TOKEN_MISSING,
                "this API takes an OAuth access token as `Authorization: Bearer <token>` (the "
                "WWW-Authenticate header says where to get one) or a client key",
                (("WWW-Authenticate", challenge(resource, scopes)),),
            )
        client = find_client(key, clients)
        if client is not None:
            return _listed(client, api.name) or Identity(client, client.id)
        if not bearer or bearer.startswith(KEY_PREFIX):  # a key, not a token: no JWT error for it
            return Refusal(
                401,
                ErrorCode.KEY_INVALID,
                "this key is not known to the gateway",
                (("WWW-Authenticate", challenge(resource, scopes, error="invalid_token")),),
            )
        try:
            claims = await self.check(bearer, resource)
        except TokenError as error:
            if error.code == ErrorCode.TOKEN_CHECK_UNAVAILABLE:
                self._outage.failed(api=api.name, reason=error.message)
                return Refusal(
                    503,
                    error.code,
                    f"the token cannot be checked now: {error.message}",
                    (("Retry-After", RETRY_AFTER),),
                )
            self._outage.recovered(api=api.name)  # the check itself worked
            return Refusal(
                401,
                ErrorCode.TOKEN_INVALID,
                error.message,
                (
                    (
                        "WWW-Authenticate",
                        challenge(resource, scopes, error="invalid_token", description=error.message),
                    ),
                ),
            )
        self._outage.recovered(api=api.name)
        missing = [scope for scope in settings.scopes_supported if scope not in claims.scopes]
        if missing:
            return Refusal(
                403,
                ErrorCode.TOKEN_SCOPE_INSUFFICIENT,
                f"the token was not granted the scope {' '.join(missing)}; sign in again asking for "
                f"{' '.join(scopes)}",
                (("WWW-Authenticate", challenge(resource, scopes, error="insufficient_scope")),),
            )
        entry = _client_of(claims, clients)
        if entry is not None:
            return _listed(entry, api.name) or Identity(
                entry, entry.id, claims, via="token", presented=Presented(bearer)
            )
        if settings.allow_unknown_clients:
            name = f"oauth:{claims.client_id or claims.subject or 'unnamed'}"
            return Identity(None, name, claims, via="token", presented=Presented(bearer))
        log_event("token of no known client", api=api.name, client=claims.client_id, subject=claims.subject)
        return Refusal(
            403,
            ErrorCode.TOKEN_CLIENT_UNKNOWN,
            "the token is valid, but neither its client_id nor its sub names a client under `clients`, "
            "and this API takes no unknown clients (`oauth.allow_unknown_clients`)",
        )

    async def aclose(self) -> None:
        await self.fetch.aclose()


def _client_of(claims: TokenClaims, clients: Mapping[str, ClientConfig]) -> ClientConfig | None:
    """`clients.<client_id>`, else `clients.<sub>` (a front token: only the client it names)."""
    for name in (claims.client_id,) if claims.client_named else (claims.client_id, claims.subject):
        if name is not None and name in clients:
            return clients[name]
    return None


def _listed(client: ClientConfig, api: str) -> Refusal | None:
    if api in client.apis:
        return None
    return Refusal(403, ErrorCode.API_FORBIDDEN, f"client {client.id!r} may not use the API {api!r}")


class ResourceServers:
    """Each served API's `ResourceServer`, made when first needed and made again when a reload changes
    the API's `oauth` or `egress.allow` (a new one starts with empty caches)."""

    def __init__(
        self,
        make: Callable[[OAuthConfig, tuple[str, ...]], ResourceServer] | None = None,
        alive: Alive | None = None,
    ) -> None:
        self._make = make or (lambda settings, allow: ResourceServer(settings, allow, alive=alive))
        self._servers: dict[str, tuple[tuple[OAuthConfig, tuple[str, ...]], ResourceServer]] = {}
        self._retired: list[ResourceServer] = []

    def of(self, api: ApiConfig) -> ResourceServer:
        """The resource server of `api`, which has `oauth:`."""
        settings = api.oauth or OAuthConfig(issuer="")  # an API without `oauth:` admits no token
        made_for = (settings, api.egress.allow)
        held = self._servers.get(api.name)
        if held is not None and held[0] == made_for:
            return held[1]
        server = self._make(settings, api.egress.allow)
        if held is not None:
            self._retired.append(held[1])
        self._servers[api.name] = (made_for, server)
        return server

    def ended(self, family: str) -> None:
        """A sign-in of the gateway's own authorization server was revoked on this instance."""
        for _, server in self._servers.values():
            server.ended(family)

    async def aclose(self) -> None:
        servers = [server for _, server in self._servers.values()] + self._retired
        self._servers.clear()
        self._retired.clear()
        for server in servers:
            await server.aclose()
