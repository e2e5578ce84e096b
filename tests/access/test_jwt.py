"""JWT access tokens: what each check refuses, with tokens the test mints itself (the issuer's JWKS is
served by the real loopback upstream and fetched through the egress policy)."""

from __future__ import annotations

import time

import pytest

from specbridge import ErrorCode
from specbridge._errors import TokenError
from tests.access.conftest import RESOURCE, MakeServer
from tests.support.tokens import Issuer, SigningKey
from tests.support.upstream import Upstream


async def refused(make_server: MakeServer, token: str) -> str:
    server = make_server()
    with pytest.raises(TokenError) as caught:
        await server.check(token, RESOURCE)
    assert caught.value.code == ErrorCode.TOKEN_INVALID
    assert len(token) < 8 or token not in caught.value.message
    return caught.value.message


async def test_a_token_the_issuer_signed_for_this_resource_is_accepted(
    make_server: MakeServer, issuer: Issuer
) -> None:
    token = issuer.mint(aud=RESOURCE, client_id="robot", sub="robot-sub", scope="mcp:tools orders")
    claims = await make_server().check(token, RESOURCE)
    assert claims.client_id == "robot"
    assert claims.subject == "robot-sub"
    assert claims.scopes == {"mcp:tools", "orders"}
    assert claims.issuer == issuer.issuer


async def test_an_audience_list_naming_this_resource_is_accepted(
    make_server: MakeServer, issuer: Issuer
) -> None:
    token = issuer.mint(aud=["https://other.example/mcp", RESOURCE])
    assert (await make_server().check(token, RESOURCE)).audiences == {"https://other.example/mcp", RESOURCE}


async def test_a_token_for_another_resource_is_refused(make_server: MakeServer, issuer: Issuer) -> None:
    message = await refused(make_server, issuer.mint(aud="http://127.0.0.1/other/mcp"))
    assert "aud" in message


async def test_a_token_without_an_audience_is_refused(make_server: MakeServer, issuer: Issuer) -> None:
    assert "aud" in await refused(make_server, issuer.mint(aud=None))


async def test_a_token_of_another_issuer_is_refused(make_server: MakeServer, issuer: Issuer) -> None:
    assert "iss" in await refused(make_server, issuer.mint(aud=RESOURCE, iss="https://evil.example"))


async def test_an_expired_token_is_refused(make_server: MakeServer, issuer: Issuer) -> None:
    now = int(time.time())
    assert "expired" in await refused(
        make_server, issuer.mint(aud=RESOURCE, iat=now - 700, nbf=now - 700, exp=now - 60)
    )


async def test_a_token_expired_within_the_leeway_is_still_accepted(
    make_server: MakeServer, issuer: Issuer
) -> None:
    now = int(time.time())
    token = issuer.mint(aud=RESOURCE, iat=now - 700, nbf=now - 700, exp=now - 5)
    assert (await make_server().check(token, RESOURCE)).expires_at == now - 5


async def test_a_token_not_valid_yet_is_refused(make_server: MakeServer, issuer: Issuer) -> None:
    now = int(time.time())
    assert "not valid yet" in await refused(
        make_server, issuer.mint(aud=RESOURCE, nbf=now + 600, exp=now + 1200)
    )


async def test_a_token_without_an_expiry_is_refused(make_server: MakeServer, issuer: Issuer) -> None:
    assert "exp" in await refused(make_server, issuer.mint(aud=RESOURCE, exp=None))


async def test_an_unsigned_token_is_refused_before_any_key_is_fetched(
    make_server: MakeServer, issuer: Issuer, upstream: Upstream
) -> None:
    message = await refused(make_server, issuer.unsigned(aud=RESOURCE))
    assert "none" in message
    assert upstream.requests == []


async def test_an_hmac_signature_made_with_the_public_key_is_refused(
    make_server: MakeServer, issuer: Issuer, upstream: Upstream
) -> None:
    message = await refused(make_server, issuer.hmac_with_public_key(aud=RESOURCE))
    assert "HS256" in message
    assert upstream.requests == []


async def test_a_token_signed_by_a_key_of_another_type_than_its_kid_is_refused(
    make_server: MakeServer, issuer: Issuer
) -> None:
    """An ES256 token naming the issuer's RSA key id."""
    elliptic = SigningKey("key-1", kind="EC")
    assert "ES256" in await refused(make_server, issuer.mint(elliptic, aud=RESOURCE))


async def test_a_signature_of_another_key_under_a_known_kid_does_not_verify(
    make_server: MakeServer, issuer: Issuer
) -> None:
    impostor = SigningKey("key-1")
    assert "signature" in await refused(make_server, issuer.mint(impostor, aud=RESOURCE))


async def test_a_token_longer_than_16_kb_is_refused_unread(
    make_server: MakeServer, issuer: Issuer, upstream: Upstream
) -> None:
    token = issuer.mint(aud=RESOURCE, padding="x" * 100_000)
    assert len(token) > 100_000
    assert "16 KB" in await refused(make_server, token)
    assert upstream.requests == []


@pytest.mark.parametrize("token", ["abc", "a.b.c", "eyJhbGciOiJSUzI1NiJ9.!!!.x", ""])
async def test_something_that_is_not_a_jwt_is_refused(make_server: MakeServer, token: str) -> None:
    assert "JWT" in await refused(make_server, token)
