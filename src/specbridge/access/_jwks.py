"""The issuer's signing keys (JWKS), fetched through the API's egress policy and kept.

The JWKS is fetched on first use and again after an hour, so a key the issuer withdrew stops being
trusted. A token signed with a key id (`kid`) not in the cached set makes it fetch again at once (the
issuer rotated its keys), but at most once a minute, so tokens with made-up key ids cannot make the
gateway hammer the authorization server. Concurrent requests share one fetch.

Without `jwks_uri`, the JWKS's address comes from the issuer's metadata (RFC 8414 or OpenID Connect
Discovery), whose `issuer` must be the configured one, and that address must meet the rules a written
`jwks_uri` meets (https:// unless its host is under egress.allow; a public address or one listed there).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import anyio
import jwt

from .._errors import TokenError
from .._logging import Outage, log_event
from ._fetch import Fetcher, unavailable

REFETCH_AFTER = 60.0  # at most one fetch a minute for an unknown key id
RETRY_AFTER_FAILURE = 5.0  # while no keys could be had at all
MAX_AGE = 3600.0  # keys are fetched again after an hour
# The key type (and curve) each accepted algorithm's key must have. Never "oct": no HMAC secrets.
KEY_TYPES: dict[str, tuple[str, str | None]] = {
    **{f"{family}{bits}": ("RSA", None) for family in ("RS", "PS") for bits in ("256", "384", "512")},
    "ES256": ("EC", "P-256"),
    "ES384": ("EC", "P-384"),
    "ES512": ("EC", "P-521"),
    "EdDSA": ("OKP", "Ed25519"),
}


def metadata_urls(issuer: str) -> list[str]:
    """Where an issuer's metadata may be: RFC 8414 (path inserted), OpenID Connect (appended), and
    OpenID Connect with the path inserted, in the order MCP clients try them."""
    scheme, _, rest = issuer.rstrip("/").partition("://")
    host, slash, path = rest.partition("/")
    origin, path = f"{scheme}://{host}", slash + path
    urls = [f"{origin}/.well-known/oauth-authorization-server{path}"]
    urls.append(f"{origin}{path}/.well-known/openid-configuration")
    if path:
        urls.append(f"{origin}/.well-known/openid-configuration{path}")
    return urls


async def discover_jwks_uri(issuer: str, fetch: Fetcher) -> str:
    for url in metadata_urls(issuer):
        status, document = await fetch.get_json(url, f"the issuer's metadata at {url}")
        if status != 200 or not isinstance(document, dict):
            continue
        if document.get("issuer") != issuer:
            raise unavailable(f"the metadata at {url} names another issuer than `oauth.issuer`")
        jwks_uri = document.get("jwks_uri")
        if not isinstance(jwks_uri, str) or not jwks_uri.startswith(("https://", "http://")):
            raise unavailable(f"the metadata at {url} names no jwks_uri; set `oauth.jwks_uri`")
        return fetch.check_named(jwks_uri, f"the jwks_uri the metadata at {url} names ({jwks_uri[:200]})")
    raise unavailable(f"no metadata found for the issuer {issuer}; set `oauth.jwks_uri`")


def _refused(message: str) -> TokenError:
    return TokenError(message)


class JwksCache:
    """The signing keys of one issuer, by key id; `key(kid, alg)` is the public key to check with."""

    def __init__(
        self,
        fetch: Fetcher,
        *,
        issuer: str,
        jwks_uri: str | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._fetch = fetch
        self._issuer = issuer
        self._uri = jwks_uri
        self._clock = clock
        self._keys: dict[str, dict[str, Any]] = {}  # kid ("" for a key without one) -> JWK
        self._parsed: dict[tuple[str, str], Any] = {}  # (kid, alg) -> public key object
        self._fetched_at: float | None = None  # when the keys held now were fetched
        self._tried_at = -REFETCH_AFTER  # when a fetch was last tried (successful or not)
        self._attempts = 0
        self._failure = "the issuer's JWKS has not been fetched"
        self._lock = anyio.Lock()
        self._outage = Outage(  # a warning once, a line when it comes back
            "jwks fetch failed",
            fix="tokens this issuer signs with a key not yet fetched are refused (503) until its JWKS can "
            "be fetched; check the issuer's address, `oauth.jwks_uri` and the API's egress.allow",
            recovered="jwks fetched again",
        )

    async def key(self, kid: str | None, alg: str) -> Any:
        """The public key for a token signed by `kid` with `alg`; `token-invalid` when the issuer
        publishes no such key, `token-check-unavailable` when its keys cannot be had."""
        if self._due():
            await self._refresh()
        jwk_id = self._find(kid)
        if jwk_id is None and self._fetched_at is not None and self._since_tried() >= REFETCH_AFTER:
            await self._refresh()  # the issuer may have rotated its keys
            jwk_id = self._find(kid)
        if jwk_id is None:
            if self._fetched_at is None:
                raise unavailable(self._failure)
            raise _refused("signed with a key the issuer does not publish (unknown `kid`)")
        parsed = self._parsed.get((jwk_id, alg))
        if parsed is None:
            parsed = self._parsed[(jwk_id, alg)] = _public_key(self._keys[jwk_id], alg)
        return parsed

    @property
    def fetches(self) -> int:
        """How many fetches were tried."""
        return self._attempts

    def _since_tried(self) -> float:
        return self._clock() - self._tried_at

    def _due(self) -> bool:
        """No keys yet (tried again every few seconds while the issuer fails), or keys over an hour old."""
        if self._fetched_at is None:
            return self._since_tried() >= RETRY_AFTER_FAILURE
        return self._clock() - self._fetched_at >= MAX_AGE and self._since_tried() >= REFETCH_AFTER

    def _find(self, kid: str | None) -> str | None:
        if kid is not None:
            return kid if kid in self._keys else None
        return next(iter(self._keys)) if len(self._keys) == 1 else None  # no kid: only with one key

    async def _refresh(self) -> None:
        """Fetch the keys again: one fetch for every request waiting on it. A failure keeps the keys
        held (and is logged); `key` tells a request with no usable key why."""
        attempt = self._attempts
        async with self._lock:
            if self._attempts != attempt:
                return  # another request fetched while this one waited
            self._attempts += 1
            self._tried_at = self._clock()
            try:
                keys = await self._load()
            except TokenError as error:
                self._failure = error.message
                self._outage.failed(issuer=self._issuer, reason=error.message)
                return
            self._keys, self._parsed, self._fetched_at = keys, {}, self._tried_at
            self._outage.recovered(issuer=self._issuer)
            log_event("jwks fetched", issuer=self._issuer, keys=len(keys))

    async def _load(self) -> dict[str, dict[str, Any]]:
        if self._uri is None:
            self._uri = await discover_jwks_uri(self._issuer, self._fetch)
        status, document = await self._fetch.get_json(self._uri, f"the JWKS at {self._uri}")
        if status != 200 or not isinstance(document, dict) or not isinstance(document.get("keys"), list):
            raise unavailable(f"the JWKS at {self._uri} answered {status} without a `keys` list")
        keys: dict[str, dict[str, Any]] = {}
        for entry in document["keys"]:
            if not isinstance(entry, dict) or entry.get("use", "sig") != "sig" or entry.get("kty") == "oct":
                continue  # encryption keys and shared secrets never check a signature here
            kid = entry.get("kid", "")
            if isinstance(kid, str):
                keys.setdefault(kid, entry)
        return keys


def _public_key(jwk: dict[str, Any], alg: str) -> Any:
    """The key of `jwk` for `alg`, when `alg` is one the key may sign with."""
    wanted = KEY_TYPES[alg]
    if (jwk.get("kty"), jwk.get("crv") if wanted[1] else None) != wanted:
        raise _refused(f"signed with {alg}, which its key (type {jwk.get('kty')}) does not use")
    if jwk.get("alg", alg) != alg:
        raise _refused(f"signed with {alg}, but its key is for another algorithm")
    try:
        return jwt.PyJWK(jwk, algorithm=alg).key
    except jwt.PyJWTError:
        raise _refused("signed with a key the issuer publishes in a form that cannot be used") from None
