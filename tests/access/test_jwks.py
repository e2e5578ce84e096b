"""The issuer's keys: fetched once and kept, fetched again on an unknown `kid` at most once a minute (one
fetch for many waiting requests), found from the issuer's metadata, and reached only through the
egress policy."""

from __future__ import annotations

import anyio
import pytest

from specbridge import ErrorCode
from specbridge._errors import TokenError
from specbridge.access import _fetch
from tests.access._server import RESOURCE, Clock, MakeServer
from tests.support.tokens import Issuer, SigningKey
from tests.support.upstream import Upstream, json_response, slow_drip


def jwks_fetches(upstream: Upstream) -> int:
    return sum(1 for request in upstream.requests if request.path == "/jwks")


async def test_the_keys_are_fetched_once_for_many_tokens(
    make_server: MakeServer, issuer: Issuer, upstream: Upstream
) -> None:
    server = make_server()
    for client in ("a", "b", "c"):
        await server.check(issuer.mint(aud=RESOURCE, client_id=client), RESOURCE)
    assert jwks_fetches(upstream) == 1


async def test_a_rotated_key_is_found_by_fetching_the_keys_again(
    make_server: MakeServer, issuer: Issuer, upstream: Upstream, clock: Clock
) -> None:
    server = make_server(clock=clock)
    await server.check(issuer.mint(aud=RESOURCE), RESOURCE)
    rotated = SigningKey("key-2")
    upstream.route("/jwks", json_response(issuer.jwks(rotated, *issuer.keys)))
    clock.advance(61)
    claims = await server.check(issuer.mint(rotated, aud=RESOURCE, client_id="after"), RESOURCE)
    assert claims.client_id == "after"
    assert jwks_fetches(upstream) == 2


async def test_an_unknown_kid_fetches_the_keys_again_at_most_once_a_minute(
    make_server: MakeServer, issuer: Issuer, upstream: Upstream, clock: Clock
) -> None:
    server = make_server(clock=clock)
    await server.check(issuer.mint(aud=RESOURCE), RESOURCE)
    clock.advance(61)
    stranger = SigningKey("not-published")
    for _ in range(5):
        with pytest.raises(TokenError, match="unknown `kid`"):
            await server.check(issuer.mint(stranger, aud=RESOURCE), RESOURCE)
        clock.advance(5)
    assert jwks_fetches(upstream) == 2  # the first fetch, and one more for all five
    clock.advance(60)
    with pytest.raises(TokenError, match="unknown `kid`"):
        await server.check(issuer.mint(stranger, aud=RESOURCE), RESOURCE)
    assert jwks_fetches(upstream) == 3


async def test_concurrent_requests_with_unknown_kids_share_one_fetch(
    make_server: MakeServer, issuer: Issuer, upstream: Upstream
) -> None:
    server = make_server()
    outcomes: list[str] = []

    async def check(index: int) -> None:
        try:
            await server.check(issuer.mint(SigningKey(f"made-up-{index}"), aud=RESOURCE), RESOURCE)
        except TokenError as error:
            outcomes.append(error.message)

    async with anyio.create_task_group() as tasks:
        for index in range(20):
            tasks.start_soon(check, index)
    assert len(outcomes) == 20
    assert jwks_fetches(upstream) == 1


async def test_keys_for_encryption_and_shared_secrets_never_check_a_signature(
    make_server: MakeServer, issuer: Issuer, upstream: Upstream
) -> None:
    encryption = {**issuer.keys[0].jwk(), "use": "enc"}
    upstream.route(
        "/jwks", json_response({"keys": [encryption, {"kty": "oct", "kid": "s", "k": "c2VjcmV0"}]})
    )
    server = make_server()
    with pytest.raises(TokenError, match="unknown `kid`"):
        await server.check(issuer.mint(aud=RESOURCE), RESOURCE)


async def test_without_jwks_uri_the_keys_are_found_from_the_issuers_metadata(
    make_server: MakeServer, issuer: Issuer, upstream: Upstream
) -> None:
    upstream.route(
        "/.well-known/oauth-authorization-server",
        json_response({"issuer": issuer.issuer, "jwks_uri": upstream.url + "/jwks"}),
    )
    server = make_server(jwks_uri=None)
    assert (await server.check(issuer.mint(aud=RESOURCE, client_id="found"), RESOURCE)).client_id == "found"


async def test_metadata_naming_another_issuer_is_not_trusted(
    make_server: MakeServer, issuer: Issuer, upstream: Upstream
) -> None:
    upstream.route(
        "/.well-known/oauth-authorization-server",
        json_response({"issuer": "https://evil.example", "jwks_uri": upstream.url + "/jwks"}),
    )
    server = make_server(jwks_uri=None)
    with pytest.raises(TokenError) as caught:
        await server.check(issuer.mint(aud=RESOURCE), RESOURCE)
    assert caught.value.code == ErrorCode.TOKEN_CHECK_UNAVAILABLE
    assert "another issuer" in caught.value.message
    assert jwks_fetches(upstream) == 0


async def test_a_jwks_on_a_private_address_is_not_fetched_without_an_egress_exception(
    make_server: MakeServer, issuer: Issuer, upstream: Upstream
) -> None:
    server = make_server(allow=())
    with pytest.raises(TokenError) as caught:
        await server.check(issuer.mint(aud=RESOURCE), RESOURCE)
    assert caught.value.code == ErrorCode.TOKEN_CHECK_UNAVAILABLE
    assert "cannot be reached" in caught.value.message
    assert upstream.requests == []


async def test_an_issuer_that_cannot_be_reached_makes_tokens_uncheckable_not_invalid(
    make_server: MakeServer, issuer: Issuer, upstream: Upstream
) -> None:
    upstream.route("/jwks", json_response({"error": "down"}, status=503))
    with pytest.raises(TokenError) as caught:
        await make_server().check(issuer.mint(aud=RESOURCE), RESOURCE)
    assert caught.value.code == ErrorCode.TOKEN_CHECK_UNAVAILABLE
    assert "503" in caught.value.message


async def test_keys_already_held_keep_working_while_the_issuer_is_down(
    make_server: MakeServer, issuer: Issuer, upstream: Upstream, clock: Clock
) -> None:
    server = make_server(clock=clock)
    await server.check(issuer.mint(aud=RESOURCE), RESOURCE)
    upstream.route("/jwks", json_response({"error": "down"}, status=503))
    clock.advance(3700)  # past the hour after which keys are fetched again
    claims = await server.check(issuer.mint(aud=RESOURCE, client_id="still"), RESOURCE)
    assert claims.client_id == "still"
    assert jwks_fetches(upstream) == 2


async def test_an_issuer_dripping_its_keys_is_given_up_at_the_whole_timeout(
    make_server: MakeServer, issuer: Issuer, upstream: Upstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a byte every 0.2 s: no read waits its timeout, the whole answer takes 12 s
    monkeypatch.setattr(_fetch, "TIMEOUT", 1.0)
    upstream.route("/jwks", slow_drip(interval=0.2, total=60))
    with pytest.raises(TokenError) as caught:
        await make_server().check(issuer.mint(aud=RESOURCE), RESOURCE)
    assert caught.value.code == ErrorCode.TOKEN_CHECK_UNAVAILABLE
    assert "no whole answer within 1 s" in caught.value.message


@pytest.mark.parametrize(
    ("named", "why"),
    [
        ("http://keys.example.com/jwks", "must be https://"),  # plain http to a host not under egress.allow
        (
            "https://localhost:9/jwks",
            "is not fetched: the host localhost is an internal name",
        ),  # not public, not under egress.allow
        ("https://169.254.169.254/jwks", "is not fetched"),
    ],
)
async def test_a_jwks_uri_the_metadata_names_meets_the_rules_a_written_one_does(
    make_server: MakeServer, issuer: Issuer, upstream: Upstream, named: str, why: str
) -> None:
    upstream.route(
        "/.well-known/oauth-authorization-server", json_response({"issuer": issuer.issuer, "jwks_uri": named})
    )
    with pytest.raises(TokenError) as caught:
        await make_server(jwks_uri=None).check(issuer.mint(aud=RESOURCE), RESOURCE)
    assert caught.value.code == ErrorCode.TOKEN_CHECK_UNAVAILABLE
    assert why in caught.value.message
