"""The authorization server of an API that hands out a person's token by RFC 8693 token exchange and by
RFC 7523 JWT bearer, scripted on the loopback upstream: glewlwyd as Debian packages it (2.7) does
neither grant (its OpenID Connect plugin knows authorization code, client credentials, refresh,
password, device and CIBA), so the tests of the two grants script the token endpoint here, as
docs/oauth-apis.md says.

    endpoint = ExchangeEndpoint(upstream, sign_in=issuer, assertion_key=public_pem)
    endpoint.route("/token")                 # POST: grant_type token-exchange or jwt-bearer
    endpoint.protect("/notes")               # the API: a 401 for anything but a token issued here

It checks what a real server checks: the subject token's signature, issuer and expiry (against the
sign-in issuer's key), the assertion's signature, `iss`, `aud` and expiry (against the gateway's
registered public key), and the client's credentials; it issues `api-<sub>-<n>` tokens, records each
token request's form, and the API answers a valid token with whose it is.
"""

from __future__ import annotations

import base64
import itertools
import json
from typing import Any
from urllib.parse import parse_qsl

import jwt

from tests.support.tokens import Issuer
from tests.support.upstream import RecordedRequest, Reply, Upstream, json_response

EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
CLIENT, SECRET = "the-gateway", "the-gateway-secret-1"


class ExchangeEndpoint:
    def __init__(
        self, upstream: Upstream, *, sign_in: Issuer | None = None, assertion_key: bytes | None = None
    ) -> None:
        self.upstream = upstream
        self.sign_in = sign_in
        self.assertion_key = assertion_key
        self.forms: list[dict[str, str]] = []
        self.issued: dict[str, str] = {}  # token -> the person (sub) it was issued for
        self.refused: set[str] = set()  # tokens the API refuses although issued (revoked)
        self._numbers = itertools.count(1)

    @property
    def token_url(self) -> str:
        return self.upstream.url + "/token"

    def route(self, path: str = "/token") -> None:
        self.upstream.route(path, self._token)

    def protect(self, *paths: str) -> None:
        for path in paths:
            self.upstream.route(path, self._api)

    def _client_ok(self, request: RecordedRequest) -> bool:
        scheme, _, value = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "basic":
            return False
        return base64.b64decode(value).decode() == f"{CLIENT}:{SECRET}"

    def _token(self, request: RecordedRequest) -> Reply:
        form = dict(parse_qsl(request.body.decode()))
        self.forms.append(form)
        if not self._client_ok(request):
            return json_response({"error": "invalid_client"}, status=401)
        kind = form.get("grant_type")
        if kind == EXCHANGE:
            person = self._subject_of_exchange(form)
        elif kind == JWT_BEARER:
            person = self._subject_of_assertion(form)
        else:
            return json_response({"error": "unsupported_grant_type"}, status=400)
        if person is None:
            return json_response({"error": "invalid_grant"}, status=400)
        token = f"api-{person}-{next(self._numbers)}"
        self.issued[token] = person
        answer: dict[str, Any] = {"access_token": token, "token_type": "Bearer", "expires_in": 600}
        if kind == EXCHANGE:
            answer["issued_token_type"] = "urn:ietf:params:oauth:token-type:access_token"
        return json_response(answer)

    def _subject_of_exchange(self, form: dict[str, str]) -> str | None:
        if self.sign_in is None or "subject_token" not in form:
            return None
        if form.get("subject_token_type") != "urn:ietf:params:oauth:token-type:access_token":
            return None
        key = self.sign_in.keys[0].public_pem()
        try:
            claims = jwt.decode(
                form["subject_token"], key, algorithms=["RS256"], issuer=self.sign_in.issuer,
                options={"verify_aud": False, "require": ["exp", "sub"]},
            )  # fmt: skip
        except jwt.PyJWTError:
            return None
        return str(claims["sub"])

    def _subject_of_assertion(self, form: dict[str, str]) -> str | None:
        if self.assertion_key is None or "assertion" not in form:
            return None
        try:
            claims = jwt.decode(
                form["assertion"], self.assertion_key, algorithms=["ES256", "RS256", "EdDSA"],
                issuer=CLIENT, audience=self.token_url, options={"require": ["exp", "sub", "jti"]},
            )  # fmt: skip
        except jwt.PyJWTError:
            return None
        return str(claims["sub"])

    def _api(self, request: RecordedRequest) -> Reply:
        header = request.headers.get("authorization", "")
        token = header.removeprefix("Bearer ")
        if not header.startswith("Bearer ") or token not in self.issued or token in self.refused:
            return json_response({"error": "invalid_token"}, status=401)
        return json_response({"person": self.issued[token], "seen": json.dumps(header)})
