"""The key the gateway's own authorization server (`oauth_server`, the front) signs its access tokens
with: an Ed25519 key derived (HKDF-SHA256) from `store_key`, so every instance on one store, holding
the one `store_key`, signs and checks the same tokens without sharing any other secret, and a new
`store_key` ends every token signed under the old one.

    keys = front_keys(store_key)       # FrontKeys: .private (to sign), .kid, .jwk(); cached by value
    await keys.key(kid, "EdDSA")       # what `JwtVerifier` asks a JWKS for: only this key, only EdDSA
"""

from __future__ import annotations

import base64
import hashlib
from typing import Any

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ed25519
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from .._errors import ConfigError, TokenError
from ..config import Secret
from ._fetch import unavailable

INFO = b"specbridge front signing key v1"
ALGORITHM = "EdDSA"


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


class FrontKeys:
    def __init__(self, secret: str) -> None:
        seed = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=INFO).derive(secret.encode("utf-8"))
        self.private = ed25519.Ed25519PrivateKey.from_private_bytes(seed)
        self.public = self.private.public_key()
        raw = self.public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        self._x = _b64(raw)
        self.kid = _b64(hashlib.sha256(b"specbridge front kid\0" + raw).digest()[:12])

    def jwk(self) -> dict[str, Any]:
        """The public key as a JWK (served at the front's `jwks_uri`)."""
        return {"kty": "OKP", "crv": "Ed25519", "x": self._x, "kid": self.kid, "use": "sig", "alg": ALGORITHM}

    async def key(self, kid: str | None, alg: str) -> Any:
        if kid != self.kid:
            raise TokenError("the token is refused: signed with a key this gateway does not sign with")
        if alg != ALGORITHM:
            raise TokenError(f"the token is refused: this gateway signs with {ALGORITHM}, not {alg}")
        return self.public


_KEYS: dict[str, FrontKeys] = {}


def front_keys(store_key: Secret | None) -> FrontKeys:
    """The front's keys for `store_key` as it reads now (`token-check-unavailable` when it cannot be
    read: nothing can be checked, which is not the token's fault)."""
    try:
        secret = store_key.reveal() if store_key is not None else ""
    except ConfigError as error:  # the env variable or file is gone
        raise unavailable(f"the gateway's store_key cannot be read: {error.message}") from None
    if not secret:
        raise unavailable("the gateway has no store_key to check its own tokens with")
    digest = hashlib.sha256(secret.encode("utf-8")).hexdigest()
    found = _KEYS.get(digest)
    if found is None:
        found = _KEYS[digest] = FrontKeys(secret)
    return found


class FrontKeySource:
    """The front's key as `JwtVerifier` asks a JWKS for one, read from `store_key` when asked."""

    def __init__(self, store_key: Secret | None) -> None:
        self._store_key = store_key

    async def key(self, kid: str | None, alg: str) -> Any:
        return await front_keys(self._store_key).key(kid, alg)
