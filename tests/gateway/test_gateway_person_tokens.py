"""Per-person tokens toward an API, end to end: the official MCP SDK client signs in with an access token
(its API has `oauth:`), and each call of the API (`auth.type: oauth2_token_exchange`) carries the token
the API's authorization server exchanged that token for (RFC 8693; scripted on loopback:
tests/support/exchange.py), never the MCP client's own token; a client key names no person and is
refused with `person-not-signed-in`, nothing sent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from specbridge.access import key_sha256
from tests.support.exchange import CLIENT, SECRET, ExchangeEndpoint
from tests.support.gateway import IN_PROCESS, http_client, in_process_gateway, write_config
from tests.support.tokens import Issuer
from tests.support.upstream import Upstream, json_response

RESOURCE = f"{IN_PROCESS}/shop/mcp"
KEY = "sbk_a-key-client-of-the-exchange-test"
STORE_KEY = "a-store-key-for-tests-only-0123456789abcdef"


@pytest.fixture
def config(
    tmp_path: Path, upstream: Upstream, monkeypatch: pytest.MonkeyPatch
) -> tuple[Path, Issuer, ExchangeEndpoint]:
    sign_in = Issuer(upstream.url + "/sign-in")
    upstream.route("/sign-in/jwks", json_response(sign_in.jwks()))
    endpoint = ExchangeEndpoint(upstream, sign_in=sign_in)
    endpoint.route("/token")
    endpoint.protect("/notes")
    monkeypatch.setenv("API_CLIENT_SECRET", SECRET)
    monkeypatch.setenv("SPECBRIDGE_TEST_STORE_KEY", STORE_KEY)
    extra = (
        f"oauth: {{issuer: {sign_in.issuer}, jwks_uri: {upstream.url}/sign-in/jwks, "
        "allow_unknown_clients: true}\n"
        f"auth: {{type: oauth2_token_exchange, token_url: {endpoint.token_url}, client_id: {CLIENT}, "
        "client_secret: env:API_CLIENT_SECRET, audience: https://api.example.com}\n"
    )
    clients = f"clients:\n  keyed: {{key_sha256: {key_sha256(KEY)}, apis: [shop]}}\n"
    path = write_config(tmp_path, upstream, extra=extra, clients=clients)
    path.write_text(
        path.read_text(encoding="utf-8")
        + f"store: sqlite:///{tmp_path / 'state.db'}\nstore_key: env:SPECBRIDGE_TEST_STORE_KEY\n",
        encoding="utf-8",
    )
    return path, sign_in, endpoint


async def test_a_call_carries_the_exchanged_token_and_never_the_mcp_clients_own(
    config: tuple[Path, Issuer, ExchangeEndpoint], upstream: Upstream
) -> None:
    path, sign_in, endpoint = config
    token = sign_in.mint(aud=RESOURCE, sub="alice", scope="mcp:tools")
    async with (
        in_process_gateway(path) as (transport, _),
        http_client(RESOURCE, key=token, transport=transport) as client,
    ):
        first = await client.call_tool("listNotes", {})
        second = await client.call_tool("listNotes", {})
    assert not first.is_error and not second.is_error, first
    sent = [request for request in upstream.requests if request.path == "/notes"]
    assert [request.headers["authorization"] for request in sent] == ["Bearer api-alice-1"] * 2
    assert len(endpoint.forms) == 1 and endpoint.forms[0]["subject_token"] == token  # kept for her
    for request in sent:
        assert (
            all(token not in value for value in request.headers.values())
            and token.encode() not in request.body
        )
    assert json.loads(first.content[0].text)["person"] == "alice"  # type: ignore[union-attr]


async def test_a_client_key_names_no_person_and_is_refused_with_nothing_sent(
    config: tuple[Path, Issuer, ExchangeEndpoint], upstream: Upstream
) -> None:
    path, _, endpoint = config
    async with (
        in_process_gateway(path) as (transport, _),
        http_client(RESOURCE, key=KEY, transport=transport) as client,
    ):
        result = await client.call_tool("listNotes", {})
    text = " ".join(getattr(block, "text", "") for block in result.content)
    assert result.is_error and text.startswith("[person-not-signed-in]"), text
    assert endpoint.forms == [] and not [r for r in upstream.requests if r.path == "/notes"]
