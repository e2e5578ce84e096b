"""Each signed-in person's own token of the API (`grants/_person.py`): RFC 8693 token exchange of the
token the person signed in with, and RFC 7523 JWT bearer with an assertion the gateway signs, against a
scripted authorization server of the API (tests/support/exchange.py: glewlwyd does neither grant), on
every store backend. Kept per person and per sign-in, renewed once after a 401, refused for a call that
comes with no signed-in person; the person's own token goes to the token endpoint only."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from specbridge import ErrorCode
from specbridge.access import Identity, Presented, TokenClaims
from specbridge.call import CallResult
from specbridge.grants import Fetched, GrantError, Grants
from specbridge.store import Store
from tests.grants._config import api_config
from tests.support.exchange import CLIENT, EXCHANGE, JWT_BEARER, SECRET, ExchangeEndpoint
from tests.support.tokens import Issuer
from tests.support.upstream import Upstream


def grants_on(store: Store) -> Grants:
    async def opened() -> Store:
        return store

    return Grants(opened)


def signed_in(issuer: Issuer, sub: str, scopes: str = "mcp:tools", name: str = "") -> Identity:
    """The identity of a request let in with a token of `issuer` for `sub`."""
    token = issuer.mint(aud="http://127.0.0.1/shop/mcp", sub=sub, scope=scopes)
    claims = TokenClaims(issuer.issuer, sub, None, frozenset(scopes.split()), frozenset(), None)
    return Identity(None, name or f"oauth:{sub}", claims, via="token", presented=Presented(token))


@pytest.fixture
def sign_in() -> Issuer:
    return Issuer("https://sign-in.example.com")


@pytest.fixture
def secret(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("API_CLIENT_SECRET", SECRET)


def exchange_api(tmp_path: Path, upstream: Upstream, **more: Any) -> Any:
    auth = {"type": "oauth2_token_exchange", "token_url": upstream.url + "/token", "client_id": CLIENT,
            "client_secret": "env:API_CLIENT_SECRET", "scopes": ["notes.read"],
            "audience": "https://api.example.com", **more}  # fmt: skip
    return api_config(tmp_path, auth, allow=(upstream.address,))


async def test_a_persons_token_is_exchanged_once_and_kept_for_that_person(
    tmp_path: Path, upstream: Upstream, store: Store, sign_in: Issuer, secret: None
) -> None:
    endpoint = ExchangeEndpoint(upstream, sign_in=sign_in)
    endpoint.route()
    api = exchange_api(tmp_path, upstream, resource="https://api.example.com/notes")
    alice, bob = signed_in(sign_in, "alice"), signed_in(sign_in, "bob")
    grants = grants_on(store)
    try:
        first = await grants.credential(api, None, alice)
        again = await grants.credential(api, None, alice)
        other = await grants.credential(api, None, bob)
    finally:
        await grants.aclose()
    assert isinstance(first, Fetched) and isinstance(again, Fetched) and isinstance(other, Fetched)
    assert first.value == again.value == "api-alice-1" and other.value == "api-bob-2"
    assert len(endpoint.forms) == 2  # alice's second call used her kept token
    form = endpoint.forms[0]
    assert alice.presented is not None and form["subject_token"] == alice.presented.reveal()
    assert form["grant_type"] == EXCHANGE
    assert form["subject_token_type"] == form["requested_token_type"]
    assert form["requested_token_type"] == "urn:ietf:params:oauth:token-type:access_token"
    assert (form["audience"], form["resource"], form["scope"]) == (
        "https://api.example.com", "https://api.example.com/notes", "notes.read",
    )  # fmt: skip


async def test_a_sign_in_granted_less_never_uses_a_token_had_for_one_granted_more(
    tmp_path: Path, upstream: Upstream, store: Store, sign_in: Issuer, secret: None
) -> None:
    ExchangeEndpoint(upstream, sign_in=sign_in).route()
    api = exchange_api(tmp_path, upstream)
    grants = grants_on(store)
    try:
        broad = await grants.credential(api, None, signed_in(sign_in, "alice", "mcp:tools admin"))
        narrow = await grants.credential(api, None, signed_in(sign_in, "alice", "mcp:tools"))
    finally:
        await grants.aclose()
    assert isinstance(broad, Fetched) and isinstance(narrow, Fetched)
    assert broad.value != narrow.value


async def test_a_call_with_no_signed_in_person_is_refused_and_asks_nothing(
    tmp_path: Path, upstream: Upstream, store: Store, sign_in: Issuer, secret: None
) -> None:
    endpoint = ExchangeEndpoint(upstream, sign_in=sign_in)
    endpoint.route()
    api = exchange_api(tmp_path, upstream)
    grants = grants_on(store)
    try:
        nobody = await grants.credential(api, None)
        keyed = await grants.credential(api, "robot", Identity(None, "robot"))
    finally:
        await grants.aclose()
    for refused in (nobody, keyed):
        assert isinstance(refused, CallResult) and refused.is_error
        assert refused.code == ErrorCode.PERSON_NOT_SIGNED_IN
        assert "nothing was sent" in refused.text
    assert endpoint.forms == []


async def test_after_the_apis_401_the_persons_token_is_exchanged_again_once(
    tmp_path: Path, upstream: Upstream, store: Store, sign_in: Issuer, secret: None
) -> None:
    endpoint = ExchangeEndpoint(upstream, sign_in=sign_in)
    endpoint.route()
    api = exchange_api(tmp_path, upstream)
    alice = signed_in(sign_in, "alice")
    grants = grants_on(store)
    try:
        first = await grants.credential(api, None, alice)
        assert isinstance(first, Fetched) and first.renew is not None
        renewed = await first.renew()
    finally:
        await grants.aclose()
    assert isinstance(renewed, Fetched) and renewed.value != first.value
    assert len(endpoint.forms) == 2


async def test_a_refused_exchange_is_upstream_auth_failed_naming_the_endpoints_error(
    tmp_path: Path, upstream: Upstream, store: Store, secret: None
) -> None:
    ExchangeEndpoint(upstream, sign_in=Issuer("https://another-issuer.example.com")).route()
    api = exchange_api(tmp_path, upstream)
    grants = grants_on(store)
    try:
        with pytest.raises(GrantError) as failed:
            await grants.credential(api, None, signed_in(Issuer("https://sign-in.example.com"), "eve"))
    finally:
        await grants.aclose()
    assert getattr(failed.value, "code", None) == ErrorCode.UPSTREAM_AUTH_FAILED
    assert "invalid_grant" in str(failed.value) and "eyJ" not in str(failed.value)


def assertion_pair(tmp_path: Path) -> tuple[Path, bytes]:
    key = ec.generate_private_key(ec.SECP256R1())
    private = tmp_path / "assertion.pem"
    private.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    public = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return private, public


async def test_the_jwt_bearer_grant_asserts_the_person_with_the_gateways_key(
    tmp_path: Path, upstream: Upstream, store: Store, sign_in: Issuer, secret: None
) -> None:
    private, public = assertion_pair(tmp_path)
    endpoint = ExchangeEndpoint(upstream, assertion_key=public)
    endpoint.route()
    auth = {"type": "oauth2_jwt_bearer", "token_url": endpoint.token_url, "client_id": CLIENT,
            "client_secret": "env:API_CLIENT_SECRET", "assertion_key": f"file:{private}",
            "assertion_key_id": "gateway-2026", "scopes": ["notes.read"]}  # fmt: skip
    api = api_config(tmp_path, auth, allow=(upstream.address,))
    alice = signed_in(sign_in, "alice")
    grants = grants_on(store)
    try:
        first = await grants.credential(api, None, alice)
        again = await grants.credential(api, None, alice)
    finally:
        await grants.aclose()
    assert isinstance(first, Fetched) and isinstance(again, Fetched) and first.value == again.value
    assert first.value == "api-alice-1" and len(endpoint.forms) == 1
    form = endpoint.forms[0]
    assert form["grant_type"] == JWT_BEARER and form["scope"] == "notes.read"
    assert alice.presented is not None and alice.presented.reveal() not in str(form)  # her token stays
    header = jwt.get_unverified_header(form["assertion"])
    assert (header["alg"], header["kid"]) == ("ES256", "gateway-2026")
    claims = jwt.decode(form["assertion"], public, algorithms=["ES256"], audience=endpoint.token_url)
    assert (claims["iss"], claims["sub"]) == (CLIENT, "alice")
    assert 0 < claims["exp"] - claims["iat"] <= 300


async def test_an_assertion_key_that_is_no_private_key_is_upstream_auth_failed(
    tmp_path: Path, upstream: Upstream, store: Store, sign_in: Issuer, secret: None
) -> None:
    (tmp_path / "not-a-key.pem").write_text("-----BEGIN NOTHING-----\n", encoding="utf-8")
    auth = {"type": "oauth2_jwt_bearer", "token_url": upstream.url + "/token", "client_id": CLIENT,
            "assertion_key": f"file:{tmp_path / 'not-a-key.pem'}"}  # fmt: skip
    api = api_config(tmp_path, auth, allow=(upstream.address,))
    grants = grants_on(store)
    try:
        with pytest.raises(GrantError) as failed:
            await grants.credential(api, None, signed_in(sign_in, "alice"))
    finally:
        await grants.aclose()
    assert getattr(failed.value, "code", None) == ErrorCode.UPSTREAM_AUTH_FAILED
    assert "assertion_key" in str(failed.value)
