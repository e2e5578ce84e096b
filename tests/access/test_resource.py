"""Letting one request in on an API with `oauth:`: a client key or an access token; a token's client is
`clients.<client_id>`, else `clients.<sub>`, with that client's settings; what is refused, and with which
challenge; a checked token costs a lookup the second time."""

from __future__ import annotations

import logging
from typing import Any

import httpx2
import pytest
from mcp.client.auth.utils import extract_field_from_www_auth

from specbridge import ErrorCode
from specbridge.access import Identity, Refusal, ResourceServer, key_sha256
from specbridge.config import ApiConfig, ClientConfig, OAuthConfig
from tests.access._server import RESOURCE, Clock, MakeServer
from tests.support.tokens import Issuer
from tests.support.upstream import Upstream, json_response

SHOP = ApiConfig(name="shop", spec="/shop.yaml")
ROBOT = ClientConfig(
    id="robot", key_sha256="", apis=("shop",), bindings={"shop": {"path.shopId": "robot-shop"}}
)
ALICE = ClientConfig(id="alice-sub", key_sha256="", apis=("shop",))
ELSEWHERE = ClientConfig(id="elsewhere", key_sha256="", apis=("other",))
KEYED = ClientConfig(id="keyed", key_sha256=key_sha256("sbk_the-key"), apis=("shop",))
CLIENTS = {client.id: client for client in (ROBOT, ALICE, ELSEWHERE, KEYED)}


def bearer(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


class Challenge:
    def __init__(self, refusal: Refusal) -> None:
        header = dict(refusal.headers)["WWW-Authenticate"]
        assert header.startswith("Bearer ")
        self.header = header

    def __getitem__(self, name: str) -> str | None:
        """The parameter as the SDK's own parser (what MCP clients run) reads it."""
        response = httpx2.Response(401, headers={"WWW-Authenticate": self.header})
        return extract_field_from_www_auth(response, name)


async def admit(
    server: ResourceServer, headers: dict[str, str], clients: Any = CLIENTS
) -> Identity | Refusal:
    return await server.admit(headers, clients, SHOP, RESOURCE)


async def test_a_request_without_a_token_is_told_where_the_metadata_is(make_server: MakeServer) -> None:
    refusal = await admit(make_server(scopes_supported=("mcp:tools",)), {})
    assert isinstance(refusal, Refusal)
    assert (refusal.status, refusal.code) == (401, ErrorCode.TOKEN_MISSING)
    challenge = Challenge(refusal)
    assert challenge["resource_metadata"] == "http://127.0.0.1/.well-known/oauth-protected-resource/shop/mcp"
    assert challenge["scope"] == "mcp:tools"
    assert challenge["error"] is None


async def test_a_token_whose_client_id_names_a_client_is_that_client(
    make_server: MakeServer, issuer: Issuer
) -> None:
    identity = await admit(
        make_server(), bearer(issuer.mint(aud=RESOURCE, client_id="robot", sub="alice-sub"))
    )
    assert isinstance(identity, Identity)
    assert identity.client is ROBOT
    assert identity.name == "robot"
    assert identity.client.bindings == {"shop": {"path.shopId": "robot-shop"}}


async def test_a_token_whose_sub_names_a_client_is_that_client(
    make_server: MakeServer, issuer: Issuer
) -> None:
    identity = await admit(
        make_server(), bearer(issuer.mint(aud=RESOURCE, client_id="some-app", sub="alice-sub"))
    )
    assert isinstance(identity, Identity)
    assert identity.client is ALICE


async def test_the_tokens_scopes_ride_along(make_server: MakeServer, issuer: Issuer) -> None:
    token = issuer.mint(aud=RESOURCE, client_id="robot", scope="mcp:tools orders:read")
    identity = await admit(make_server(), bearer(token))
    assert isinstance(identity, Identity)
    assert identity.scopes == {"mcp:tools", "orders:read"}
    assert token not in repr(identity)


async def test_a_token_of_no_known_client_is_refused(make_server: MakeServer, issuer: Issuer) -> None:
    refusal = await admit(
        make_server(), bearer(issuer.mint(aud=RESOURCE, client_id="stranger", sub="nobody"))
    )
    assert isinstance(refusal, Refusal)
    assert (refusal.status, refusal.code) == (403, ErrorCode.TOKEN_CLIENT_UNKNOWN)


async def test_allow_unknown_clients_lets_such_a_token_in_with_the_apis_defaults(
    make_server: MakeServer, issuer: Issuer
) -> None:
    identity = await admit(
        make_server(allow_unknown_clients=True), bearer(issuer.mint(aud=RESOURCE, client_id="stranger"))
    )
    assert isinstance(identity, Identity)
    assert identity.client is None
    assert identity.name == "oauth:stranger"


async def test_a_tokens_client_must_list_the_api(make_server: MakeServer, issuer: Issuer) -> None:
    refusal = await admit(make_server(), bearer(issuer.mint(aud=RESOURCE, client_id="elsewhere")))
    assert isinstance(refusal, Refusal)
    assert (refusal.status, refusal.code) == (403, ErrorCode.API_FORBIDDEN)


async def test_a_token_missing_a_needed_scope_gets_an_insufficient_scope_challenge(
    make_server: MakeServer, issuer: Issuer
) -> None:
    server = make_server(scopes_supported=("mcp:tools", "orders"))
    refusal = await admit(server, bearer(issuer.mint(aud=RESOURCE, client_id="robot", scope="mcp:tools")))
    assert isinstance(refusal, Refusal)
    assert (refusal.status, refusal.code) == (403, ErrorCode.TOKEN_SCOPE_INSUFFICIENT)
    challenge = Challenge(refusal)
    assert challenge["error"] == "insufficient_scope"
    assert challenge["scope"] == "mcp:tools orders"
    assert challenge["resource_metadata"] == "http://127.0.0.1/.well-known/oauth-protected-resource/shop/mcp"


async def test_a_bad_token_gets_an_invalid_token_challenge_that_never_quotes_it(
    make_server: MakeServer, issuer: Issuer
) -> None:
    token = issuer.mint(aud="https://elsewhere.example/mcp", client_id="robot")
    refusal = await admit(make_server(), bearer(token))
    assert isinstance(refusal, Refusal)
    assert (refusal.status, refusal.code) == (401, ErrorCode.TOKEN_INVALID)
    challenge = Challenge(refusal)
    assert challenge["error"] == "invalid_token"
    assert "aud" in (challenge["error_description"] or "")
    assert token not in refusal.message and token not in challenge.header


async def test_an_issuer_that_cannot_be_asked_gives_503_not_a_new_sign_in(
    make_server: MakeServer, issuer: Issuer
) -> None:
    refusal = await admit(make_server(allow=()), bearer(issuer.mint(aud=RESOURCE, client_id="robot")))
    assert isinstance(refusal, Refusal)
    assert (refusal.status, refusal.code) == (503, ErrorCode.TOKEN_CHECK_UNAVAILABLE)
    assert dict(refusal.headers) == {"Retry-After": "10"}


@pytest.mark.parametrize("headers", [bearer("sbk_the-key"), {"x-api-key": "sbk_the-key"}])
async def test_a_client_key_still_opens_an_oauth_api(
    make_server: MakeServer, headers: dict[str, str]
) -> None:
    identity = await admit(make_server(), headers)
    assert isinstance(identity, Identity)
    assert identity.client is KEYED
    assert identity.token is None


async def test_an_unknown_client_key_is_key_invalid_not_a_malformed_token(make_server: MakeServer) -> None:
    refusal = await admit(make_server(), bearer("sbk_not-a-key-of-this-gateway"))
    assert isinstance(refusal, Refusal)
    assert (refusal.status, refusal.code) == (401, ErrorCode.KEY_INVALID)
    assert Challenge(refusal)["error"] == "invalid_token"


async def test_an_unknown_key_in_x_api_key_is_not_taken_for_a_token(
    make_server: MakeServer, issuer: Issuer
) -> None:
    refusal = await admit(make_server(), {"x-api-key": issuer.mint(aud=RESOURCE, client_id="robot")})
    assert isinstance(refusal, Refusal)
    assert (refusal.status, refusal.code) == (401, ErrorCode.KEY_INVALID)


async def test_a_checked_token_is_not_checked_again(
    make_server: MakeServer, issuer: Issuer, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = make_server()
    token = issuer.mint(aud=RESOURCE, client_id="robot")
    await admit(server, bearer(token))
    checks: list[str] = []
    verify = server.verifier.verify

    async def counted(*args: Any) -> Any:
        checks.append("verify")
        return await verify(*args)

    monkeypatch.setattr(server.verifier, "verify", counted)
    for _ in range(3):
        assert isinstance(await admit(server, bearer(token)), Identity)
    assert checks == []
    assert isinstance(
        await admit(server, bearer(issuer.mint(aud=RESOURCE, client_id="robot", jti="new"))), Identity
    )
    assert checks == ["verify"]


async def test_a_kept_token_is_still_refused_for_another_resource(
    make_server: MakeServer, issuer: Issuer
) -> None:
    server = make_server()
    token = issuer.mint(aud=RESOURCE, client_id="robot")
    assert isinstance(await admit(server, bearer(token)), Identity)
    refusal = await server.admit(bearer(token), CLIENTS, SHOP, "http://127.0.0.1/other/mcp")
    assert isinstance(refusal, Refusal)
    assert refusal.code == ErrorCode.TOKEN_INVALID


def test_resource_servers_are_made_again_when_an_apis_oauth_changes() -> None:
    from dataclasses import replace

    from specbridge.access import ResourceServers

    made: list[OAuthConfig] = []

    def make(settings: OAuthConfig, allow: tuple[str, ...]) -> ResourceServer:
        made.append(settings)
        return object()  # type: ignore[return-value]

    servers = ResourceServers(make)
    api = replace(SHOP, oauth=OAuthConfig(issuer="https://a.example", jwks_uri="https://a.example/j"))
    first = servers.of(api)
    assert servers.of(api) is first
    changed = replace(api, oauth=OAuthConfig(issuer="https://b.example", jwks_uri="https://b.example/j"))
    assert servers.of(changed) is not first
    assert [settings.issuer for settings in made] == ["https://a.example", "https://b.example"]


async def test_an_issuer_that_is_down_is_one_warning_then_one_line_when_it_is_back(
    make_server: MakeServer,
    issuer: Issuer,
    upstream: Upstream,
    clock: Clock,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Every token of the API is refused while the issuer's keys cannot be had: said once (warning, with
    what to check), not once per request; the first request checked again says it came back."""
    upstream.route("/jwks", json_response({"error": "down"}, status=503))
    server = make_server(clock=clock)
    token = issuer.mint(aud=RESOURCE, client_id="robot")
    with caplog.at_level(logging.DEBUG, logger="specbridge.gateway"):
        for _ in range(3):
            refusal = await admit(server, bearer(token))
            assert isinstance(refusal, Refusal) and refusal.code == ErrorCode.TOKEN_CHECK_UNAVAILABLE
            clock.advance(10)  # past the pause between fetches while the issuer fails
        upstream.route("/jwks", json_response(issuer.jwks()))
        assert isinstance(await admit(server, bearer(token)), Identity)
        assert isinstance(await admit(server, bearer(token)), Identity)

    def levels(event: str) -> list[int]:
        return [record.levelno for record in caplog.records if record.getMessage() == event]

    assert levels("token check unavailable") == [logging.WARNING, logging.DEBUG, logging.DEBUG]
    assert levels("jwks fetch failed") == [logging.WARNING, logging.DEBUG, logging.DEBUG]
    assert levels("token check available again") == [logging.INFO]
    assert levels("jwks fetched again") == [logging.INFO]
    [warning] = [
        record
        for record in caplog.records
        if record.levelno == logging.WARNING and "token" in record.getMessage()
    ]
    assert "client keys still work" in warning.fields["fix"]  # type: ignore[attr-defined]
