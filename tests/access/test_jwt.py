"""JWT access tokens: what each check refuses, with tokens the test mints itself (the issuer's JWKS is
served by the real loopback upstream and fetched through the egress policy)."""

from __future__ import annotations

import time
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from specbridge import ErrorCode
from specbridge._errors import TokenError
from tests.access._server import RESOURCE, MakeServer
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


def test_the_pyjwt_pin_admits_no_release_with_the_substring_iss_or_unknown_crit_bugs() -> None:
    # 2.10.0 took an `iss` that is a substring of the issuer (CVE-2024-53861, fixed in 2.10.1); up to
    # 2.11.0 a token with unknown `crit` header extensions verified (CVE-2026-32597, fixed in 2.12.0).
    project = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())
    (pin,) = [
        Requirement(line)
        for line in project["project"]["optional-dependencies"]["gateway"]
        if Requirement(line).name.lower() == "pyjwt"
    ]
    assert not any(pin.specifier.contains(old) for old in ("2.10.0", "2.10.1", "2.11.0"))
    assert pin.specifier.contains("2.12.0")
    assert pin.specifier.contains(metadata.version("PyJWT"))  # what the tests run is what is pinned


async def test_an_iss_that_is_only_part_of_the_issuer_is_refused(
    make_server: MakeServer, issuer: Issuer
) -> None:
    part = issuer.issuer[:-1]  # "http://127.0.0.1:4567" of "http://127.0.0.1:45678"
    assert part in issuer.issuer
    assert "iss" in await refused(make_server, issuer.mint(aud=RESOURCE, iss=part))


async def test_a_token_with_a_critical_header_extension_is_refused(
    make_server: MakeServer, issuer: Issuer
) -> None:
    # RFC 7515 §4.1.11: a `crit` extension the recipient does not understand makes the JWS invalid;
    # the gateway understands none
    token = issuer.mint(aud=RESOURCE, headers={"crit": ["x-policy"], "x-policy": "require-mfa"})
    assert "crit" in await refused(make_server, token)
