"""Access tokens a test mints itself: well-formed ones from a key it publishes as a JWKS, and the
malformed kinds a resource server must refuse (another audience or issuer, expired, `alg: none`, an
HMAC "signature" made with the issuer's public key, an unknown `kid`, a 100 KB token).

    issuer = Issuer("https://auth.example.com")
    upstream.route("/jwks", json_response(issuer.jwks()))
    token = issuer.mint(aud="http://127.0.0.1/shop/mcp", client_id="robot", scope="mcp:tools")
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from jwt.algorithms import ECAlgorithm, RSAAlgorithm


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class SigningKey:
    def __init__(self, kid: str, kind: str = "RSA") -> None:
        self.kid = kid
        self.kind = kind
        self.private: rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey = (
            rsa.generate_private_key(public_exponent=65537, key_size=2048)
            if kind == "RSA"
            else ec.generate_private_key(ec.SECP256R1())
        )

    @property
    def alg(self) -> str:
        return "RS256" if self.kind == "RSA" else "ES256"

    def jwk(self) -> dict[str, Any]:
        public = self.private.public_key()
        data = json.loads(
            RSAAlgorithm.to_jwk(public) if self.kind == "RSA" else ECAlgorithm.to_jwk(public)  # type: ignore[arg-type]
        )
        return {**data, "kid": self.kid, "use": "sig", "alg": self.alg}

    def public_pem(self) -> bytes:
        return self.private.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )


class Issuer:
    def __init__(self, issuer: str) -> None:
        self.issuer = issuer
        self.keys = [SigningKey("key-1")]

    def jwks(self, *keys: SigningKey) -> dict[str, Any]:
        return {"keys": [key.jwk() for key in (keys or self.keys)]}

    def claims(self, **claims: Any) -> dict[str, Any]:
        now = int(time.time())
        return {
            "iss": self.issuer,
            "iat": now,
            "nbf": now,
            "exp": now + 600,
            "jti": _b64(hashlib.sha256(str(time.perf_counter_ns()).encode()).digest()[:12]),
            **claims,
        }

    def mint(
        self, key: SigningKey | None = None, *, headers: dict[str, Any] | None = None, **claims: Any
    ) -> str:
        """A token signed by `key` (the first key), with the usual claims overridden by `claims` (a claim
        given as None is left out)."""
        key = key or self.keys[0]
        payload = {name: value for name, value in self.claims(**claims).items() if value is not None}
        return jwt.encode(
            payload,
            key.private,
            algorithm=key.alg,
            headers={"kid": key.kid, "typ": "at+jwt", **(headers or {})},
        )

    def unsigned(self, **claims: Any) -> str:
        """`alg: none`: a token anyone can write."""
        header = _b64(json.dumps({"alg": "none", "typ": "JWT"}).encode())
        return f"{header}.{_b64(json.dumps(self.claims(**claims)).encode())}."

    def hmac_with_public_key(self, key: SigningKey | None = None, **claims: Any) -> str:
        """HS256 keyed with the issuer's public key (PEM): valid if a verifier let the token's header pick
        the algorithm and used the published key as an HMAC secret."""
        key = key or self.keys[0]
        header = _b64(json.dumps({"alg": "HS256", "typ": "JWT", "kid": key.kid}).encode())
        body = _b64(json.dumps(self.claims(**claims)).encode())
        signature = hmac.new(key.public_pem(), f"{header}.{body}".encode(), hashlib.sha256).digest()
        return f"{header}.{body}.{_b64(signature)}"
