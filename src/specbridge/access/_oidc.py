"""Signing a person in at an OpenID Connect provider (the gateway as its relying party): what the
gateway's own authorization server (`oauth_server`) and the admin page's sign-in both use.

    provider = OidcProvider(upstream, allow)                 # oauth_server.upstream, its egress exceptions
    start = provider.start(redirect_uri)                     # state, nonce, PKCE verifier: kept by the caller
    url = await provider.authorize_url(start, redirect_uri)  # where the browser goes
    claims = await provider.finish(code, start, redirect_uri)  # the ID token's claims, checked

Discovery (`<issuer>/.well-known/openid-configuration`, whose `issuer` must be the configured one), the
token endpoint and the JWKS are reached through the egress policy (`_fetch.Fetcher`), bounded. The
authorization asks for the code flow with PKCE (S256), a `state` and a `nonce`; the ID token is checked
with PyJWT against the provider's JWKS (`_jwks.JwksCache`: asymmetric algorithms only, the key's type
fitting its algorithm): its signature, `iss`, `aud` naming our client id (and `azp` when it names
several), `exp`/`iat` with leeway, and the `nonce` this sign-in sent. Failures are `SignInError`s whose
messages name the step, never a token or a code.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import jwt

from .._errors import ConfigError, ErrorCode, SpecbridgeError, TokenError
from ..config import UpstreamConfig
from ._claims import LEEWAY
from ._fetch import Fetcher
from ._jwks import KEY_TYPES, JwksCache

KEEP_METADATA = 3600.0
ID_TOKEN_ALGORITHMS = frozenset(KEY_TYPES)


class SignInError(SpecbridgeError):
    """The person could not be signed in at the provider (the page says why; nothing was issued)."""

    code = ErrorCode.SIGNIN_FAILED


def challenge_of(verifier: str) -> str:
    """PKCE S256 (RFC 7636 §4.2)."""
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).decode("ascii").rstrip("=")


@dataclass(frozen=True, slots=True)
class Start:
    """A sign-in under way: what the caller keeps (sealed, once) until the provider sends the person back."""

    state: str
    nonce: str
    verifier: str

    @classmethod
    def new(cls) -> Start:
        return cls(secrets.token_urlsafe(24), secrets.token_urlsafe(24), secrets.token_urlsafe(48))


class OidcProvider:
    def __init__(
        self,
        upstream: UpstreamConfig,
        allow: tuple[str, ...] = (),
        *,
        fetch: Fetcher | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.upstream = upstream
        self.fetch = fetch or Fetcher(allow)
        self._clock = clock
        self._metadata: tuple[dict[str, Any], float] | None = None
        self._jwks: JwksCache | None = None

    async def metadata(self) -> dict[str, Any]:
        """The provider's discovery document (kept an hour)."""
        now = self._clock()
        if self._metadata is not None and self._metadata[1] > now:
            return self._metadata[0]
        issuer = self.upstream.issuer
        url = issuer + "/.well-known/openid-configuration"
        try:
            status, document = await self.fetch.get_json(url, f"the provider's discovery document at {url}")
        except TokenError as error:
            raise SignInError(f"the sign-in provider cannot be reached now: {error.message}") from None
        if status != 200 or not isinstance(document, dict):
            raise SignInError(f"the sign-in provider's discovery document answered {status}")
        if document.get("issuer") != issuer:
            raise SignInError("the sign-in provider's discovery document names another issuer")
        for name in ("authorization_endpoint", "token_endpoint", "jwks_uri"):
            value = document.get(name)
            if not isinstance(value, str) or not value.startswith(("https://", "http://")):
                raise SignInError(f"the sign-in provider's discovery document has no usable {name}")
        self._metadata = (document, now + KEEP_METADATA)
        if self._jwks is None:
            self._jwks = JwksCache(self.fetch, issuer=issuer, jwks_uri=document["jwks_uri"])
        return document

    async def authorize_url(self, start: Start, redirect_uri: str, **extra: str) -> str:
        """Where the browser is sent to sign in (the code flow, PKCE S256, state and nonce)."""
        endpoint = str((await self.metadata())["authorization_endpoint"])
        query = {
            "response_type": "code",
            "client_id": self.upstream.client_id,
            "redirect_uri": redirect_uri,
            "scope": " ".join(self.upstream.scopes),
            "state": start.state,
            "nonce": start.nonce,
            "code_challenge": challenge_of(start.verifier),
            "code_challenge_method": "S256",
            **extra,
        }
        return endpoint + ("&" if "?" in endpoint else "?") + urlencode(query)

    async def finish(self, code: str, start: Start, redirect_uri: str) -> dict[str, Any]:
        """The code redeemed (with the PKCE verifier) and the ID token's claims, checked."""
        document = await self.metadata()
        form = {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": redirect_uri,
            "code_verifier": start.verifier,
        }
        auth = None
        if self.upstream.client_secret is not None:
            try:
                auth = (self.upstream.client_id, self.upstream.client_secret.reveal())
            except ConfigError:
                raise SignInError("the sign-in client_secret is not available to the gateway") from None
        else:
            form["client_id"] = self.upstream.client_id
        url = str(document["token_endpoint"])
        try:
            status, answer = await self.fetch.post_form(
                url, f"the provider's token endpoint {url}", form, auth
            )
        except TokenError as error:
            raise SignInError(f"the sign-in provider cannot be reached now: {error.message}") from None
        if status != 200 or not isinstance(answer, dict):
            said = answer.get("error") if isinstance(answer, dict) else None
            shown = f" ({said})" if isinstance(said, str) and said.isidentifier() and len(said) < 40 else ""
            raise SignInError(f"the sign-in provider's token endpoint answered {status}{shown}")
        id_token = answer.get("id_token")
        if not isinstance(id_token, str) or len(id_token) > 16 * 1024:
            raise SignInError("the sign-in provider answered no ID token")
        return await self._check(id_token, start.nonce)

    async def _check(self, id_token: str, nonce: str) -> dict[str, Any]:
        assert self._jwks is not None  # `metadata` made it
        try:
            alg = jwt.get_unverified_header(id_token).get("alg")
        except jwt.PyJWTError:
            raise SignInError("the provider's ID token is not a well-formed JWT") from None
        if alg not in ID_TOKEN_ALGORITHMS:
            raise SignInError("the provider's ID token is not signed with an algorithm the gateway takes")
        kid = jwt.get_unverified_header(id_token).get("kid")
        try:
            key = await self._jwks.key(kid if isinstance(kid, str) else None, alg)
            claims: dict[str, Any] = jwt.decode(
                id_token,
                key,
                algorithms=[alg],
                issuer=self.upstream.issuer,
                audience=self.upstream.client_id,
                leeway=LEEWAY,
                options={"require": ["exp", "iat", "iss", "aud", "sub"]},
            )
        except TokenError as error:
            raise SignInError(f"the provider's ID token cannot be checked: {error.message}") from None
        except jwt.PyJWTError as error:
            raise SignInError(f"the provider's ID token is refused ({type(error).__name__})") from None
        audiences = claims["aud"] if isinstance(claims["aud"], list) else [claims["aud"]]
        if len(audiences) > 1 and claims.get("azp") != self.upstream.client_id:
            raise SignInError("the provider's ID token was issued to another client (azp)")
        if not isinstance(claims.get("nonce"), str) or not secrets.compare_digest(claims["nonce"], nonce):
            raise SignInError("the provider's ID token is not the answer to this sign-in (nonce)")
        return claims

    async def aclose(self) -> None:
        await self.fetch.aclose()
