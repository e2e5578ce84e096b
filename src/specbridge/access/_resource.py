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
so a token's second request costs a hash and a lookup. The token itself goes nowhere: not into the
identity, not into a log line, not upstream.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Mapping

import httpx

from .._errors import ErrorCode, TokenError
from .._logging import log_event
from ..call import Lru
from ..config import ApiConfig, ClientConfig, OAuthConfig
from ._claims import LEEWAY, MAX_TOKEN_LENGTH, TokenClaims
from ._fetch import Fetcher
from ._identity import Identity, Presented
from ._introspection import IntrospectionVerifier
from ._jwks import JwksCache
from ._jwt import JwtVerifier
from ._keys import KEY_PREFIX, Refusal, find_client
from ._metadata import challenge

KEEP = 300.0
CACHE_SIZE = 10_000
RETRY_AFTER = "10"


class ResourceServer:
    def __init__(
        self,
        settings: OAuthConfig,
        allow: tuple[str, ...] = (),
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        clock: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.settings = settings
        self.fetch = Fetcher(allow, transport=transport)
        self._clock = clock
        self.verifier: JwtVerifier | IntrospectionVerifier
        if settings.introspection is not None:
            self.verifier = IntrospectionVerifier(
                settings.issuer, settings.introspection, self.fetch, clock=clock
            )
        else:
            jwks = JwksCache(self.fetch, issuer=settings.issuer, jwks_uri=settings.jwks_uri, clock=monotonic)
            self.verifier = JwtVerifier(settings.issuer, jwks)
        self._checked: Lru[bytes, tuple[TokenClaims, float]] = Lru(CACHE_SIZE)

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
            if resource in claims.audiences:
                return claims
        claims = await self.verifier.verify(token, resources)
        expires = claims.expires_at if claims.expires_at is not None else now
        self._checked.put(digest, (claims, min(now + KEEP, expires + LEEWAY)))
        return claims

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
                log_event("token check unavailable", api=api.name, reason=error.message)
                return Refusal(
                    503,
                    error.code,
                    f"the token cannot be checked now: {error.message}",
                    (("Retry-After", RETRY_AFTER),),
                )
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
    """`clients.<client_id>`, else `clients.<sub>`."""
    for name in (claims.client_id, claims.subject):
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

    def __init__(self, make: Callable[[OAuthConfig, tuple[str, ...]], ResourceServer] | None = None) -> None:
        self._make = make or ResourceServer
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

    async def aclose(self) -> None:
        servers = [server for _, server in self._servers.values()] + self._retired
        self._servers.clear()
        self._retired.clear()
        for server in servers:
            await server.aclose()
