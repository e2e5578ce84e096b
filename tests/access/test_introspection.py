"""Tokens checked by introspection (RFC 7662) at a real authorization server (glewlwyd): the answer is
kept until the token expires (at most five minutes), a revoked token stops working once that is over,
and an answer that does not name this resource is refused. glewlwyd tells a client signed in with HTTP
Basic only about its own tokens, so here the gateway signs in as `robot`, the client of the tokens."""

from __future__ import annotations

import pytest

from specbridge import ErrorCode
from specbridge._errors import TokenError
from tests.access._server import RESOURCE, Clock, MakeServer
from tests.support.glewlwyd import ROBOT, ROBOT_SECRET, Glewlwyd
from tests.support.upstream import Upstream, json_response


@pytest.fixture
def introspecting(
    glewlwyd: Glewlwyd, make_server: MakeServer, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> MakeServer:
    monkeypatch.setenv("SPECBRIDGE_TEST_INTROSPECTION", ROBOT_SECRET)
    glewlwyd.allow_resources(RESOURCE)

    def make(secret: str = "env:SPECBRIDGE_TEST_INTROSPECTION") -> object:
        return make_server(
            issuer=glewlwyd.issuer,
            introspection={"url": f"{glewlwyd.issuer}/introspect", "client_id": ROBOT, "secret": secret},
            allow=(glewlwyd.address,),
            clock=clock,
        )

    return make  # type: ignore[return-value]


async def test_an_active_token_is_accepted_and_its_answer_kept(
    glewlwyd: Glewlwyd, introspecting: MakeServer
) -> None:
    server = introspecting()
    token = glewlwyd.client_credentials_token(RESOURCE)
    claims = await server.check(token, RESOURCE)
    assert claims.client_id == "robot"
    assert claims.scopes == {"mcp:tools"}
    await server.check(token, RESOURCE)
    assert server.fetch.requests == 1


async def test_a_revoked_token_stops_working_when_its_kept_answer_is_over(
    glewlwyd: Glewlwyd, introspecting: MakeServer, clock: Clock
) -> None:
    server = introspecting()
    token = glewlwyd.client_credentials_token(RESOURCE)
    await server.check(token, RESOURCE)
    glewlwyd.revoke(token)
    await server.check(token, RESOURCE)  # still the kept answer
    clock.advance(301)
    with pytest.raises(TokenError, match="not active"):
        await server.check(token, RESOURCE)
    assert server.fetch.requests == 2


async def test_a_token_issued_for_another_resource_is_refused(
    glewlwyd: Glewlwyd, introspecting: MakeServer
) -> None:
    token = glewlwyd.client_credentials_token(None)  # no resource indicator: glewlwyd's aud is the scope
    with pytest.raises(TokenError, match="aud"):
        await introspecting().check(token, RESOURCE)


async def test_a_made_up_token_is_refused(introspecting: MakeServer) -> None:
    with pytest.raises(TokenError) as caught:
        await introspecting().check("made-up-token-" + "x" * 30, RESOURCE)
    assert caught.value.code == ErrorCode.TOKEN_INVALID


async def test_wrong_gateway_credentials_make_tokens_uncheckable(
    glewlwyd: Glewlwyd, introspecting: MakeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SPECBRIDGE_TEST_WRONG", "not-the-secret")
    with pytest.raises(TokenError) as caught:
        await introspecting("env:SPECBRIDGE_TEST_WRONG").check(
            glewlwyd.client_credentials_token(RESOURCE), RESOURCE
        )
    assert caught.value.code == ErrorCode.TOKEN_CHECK_UNAVAILABLE
    assert "not-the-secret" not in caught.value.message


async def test_an_introspection_answer_without_an_audience_is_refused(
    make_server: MakeServer, upstream: Upstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An answer the test writes itself: active, but naming no resource (the MCP specification requires
    the audience check, so such an answer cannot let a token in)."""
    monkeypatch.setenv("SPECBRIDGE_TEST_INTROSPECTION", "x")
    upstream.route("/introspect", json_response({"active": True, "client_id": "robot", "scope": "mcp:tools"}))
    server = make_server(
        introspection={
            "url": upstream.url + "/introspect",
            "client_id": "g",
            "secret": "env:SPECBRIDGE_TEST_INTROSPECTION",
        }
    )
    with pytest.raises(TokenError, match="no audience"):
        await server.check("opaque-token-value-1234567890", RESOURCE)
    assert upstream.requests[-1].headers["authorization"].startswith("Basic ")
