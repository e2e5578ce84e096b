"""Each signed-in person's own token of the API: had for the person an MCP client signed in as (an
access token the gateway took: `Identity.token`), never for a client key, never shared with another
person, and never the MCP client's own token sent to the API.

- `TokenExchange` (RFC 8693): the access token the MCP client signed in with (`Identity.presented`) is
  posted to the API's token endpoint as the `subject_token`, for a token of the API (`audience`,
  `resource`, `scope`); only the token endpoint sees it.
- `JwtBearer` (RFC 7523 §2.1): the gateway signs an assertion that names the person (`sub`) with its
  own key (`assertion_key`), and posts it as the grant.

A token is kept per person and per what they signed in with (`person_slot`: the token's issuer, subject,
client and scopes, and the gateway's client it was let in as), so a token had through one MCP client is
never used for a sign-in that was granted less.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa

from .._errors import ConfigError, ErrorCode
from ..call import CallResult
from ..store import Store
from ._endpoint import GrantError
from ._grant import Grant, Need
from ._slots import person_slot
from ._tokens import Tokens

EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
ACCESS_TOKEN = "urn:ietf:params:oauth:token-type:access_token"
ASSERTION_LIFE = 300  # seconds an assertion is good for (RFC 7523 requires `exp`)


def person_of(need: Need) -> str | None:
    """What a person's token is kept by (None: the call names no person)."""
    identity = need.identity
    token = identity.token if identity is not None else None
    if identity is None or token is None or identity.person is None:
        return None
    scopes = " ".join(sorted(token.scopes))
    return "\0".join((identity.person, token.client_id or "", scopes, identity.name))


class _PerPerson(Grant):
    def slot(self, need: Need) -> str | CallResult:
        person = person_of(need)
        if person is None:
            return CallResult(
                f"{need.api.name} is called with the token of the person signed in, and this call comes "
                "with no signed-in person (a client key, stdio, or an approved call sent after its "
                "caller left); sign in with OAuth and call again; nothing was sent",
                is_error=True,
                code=ErrorCode.PERSON_NOT_SIGNED_IN,
            )
        return person_slot(need.api, person)


class TokenExchange(_PerPerson):
    type = "token_exchange"
    grant_type = EXCHANGE

    async def fetch(self, need: Need, store: Store, slot: str, stored: Tokens | None) -> Tokens:
        presented = need.identity.presented if need.identity is not None else None
        if presented is None:
            raise GrantError("the signed-in person's token is not at hand to exchange")
        grant = need.grant
        form = self.form(need)
        form |= {
            "subject_token": presented.reveal(),
            "subject_token_type": grant.subject_token_type,
            "requested_token_type": ACCESS_TOKEN,
        }
        if grant.audience:
            form["audience"] = grant.audience
        if grant.resource:
            form["resource"] = grant.resource
        return await self.ask(need, form)


class JwtBearer(_PerPerson):
    type = "jwt_bearer"
    grant_type = JWT_BEARER

    async def fetch(self, need: Need, store: Store, slot: str, stored: Tokens | None) -> Tokens:
        grant = need.grant
        token = need.identity.token if need.identity is not None else None
        assert token is not None and token.subject is not None  # `slot` named a person
        now = int(self.tools.clock())
        claims = {
            "iss": grant.assertion_issuer or grant.client_id,
            "sub": token.subject,
            "aud": grant.assertion_audience or grant.token_url,
            "iat": now,
            "nbf": now,
            "exp": now + ASSERTION_LIFE,
            "jti": secrets.token_urlsafe(16),
        }
        key, algorithm = _signing_key(need)
        headers = {"kid": grant.assertion_key_id} if grant.assertion_key_id else None
        assertion = jwt.encode(claims, key, algorithm=algorithm, headers=headers)
        return await self.ask(need, {**self.form(need), "assertion": assertion})


_KEYS: dict[str, tuple[Any, str]] = {}  # by a hash of the PEM: parsing an RSA key costs a millisecond


def _signing_key(need: Need) -> tuple[Any, str]:
    """The assertion key (a PEM private key: RSA, EC P-256/P-384/P-521 or Ed25519) and its algorithm."""
    secret = need.grant.assertion_key
    try:
        pem = secret.reveal() if secret is not None else ""
    except ConfigError:
        raise GrantError("the assertion_key is not available to the gateway") from None
    digest = hashlib.sha256(pem.encode("utf-8")).hexdigest()
    found = _KEYS.get(digest)
    if found is not None:
        return found
    try:
        key = serialization.load_pem_private_key(pem.encode("utf-8"), password=None)
    except (ValueError, TypeError):
        raise GrantError("the assertion_key is not a PEM private key without a passphrase") from None
    if isinstance(key, rsa.RSAPrivateKey):
        algorithm = "RS256"
    elif isinstance(key, ec.EllipticCurvePrivateKey):
        sizes = {"secp256r1": "ES256", "secp384r1": "ES384", "secp521r1": "ES512"}
        if key.curve.name not in sizes:
            raise GrantError("the assertion_key is on a curve JWTs do not use (P-256, P-384, P-521)")
        algorithm = sizes[key.curve.name]
    elif isinstance(key, ed25519.Ed25519PrivateKey):
        algorithm = "EdDSA"
    else:
        raise GrantError("the assertion_key is not an RSA, EC or Ed25519 key")
    _KEYS[digest] = (key, algorithm)
    return key, algorithm
