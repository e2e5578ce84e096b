"""An API with `oauth:` over Streamable HTTP: its Protected Resource Metadata, the 401/403 challenges, and
access tokens of a real authorization server (glewlwyd) letting the official SDK client list and call
tools as the token's client, whose bindings and secrets apply, while the token reaches neither the API
nor a log line."""

from __future__ import annotations

import io
import logging
from pathlib import Path
from urllib.parse import urlsplit

import httpx2
import pytest
from mcp.client.auth.utils import extract_field_from_www_auth

from specbridge._errors import ErrorCode
from specbridge._logging import LOGGER_NAME, configure_logging
from specbridge.access import key_sha256
from specbridge.config import load_config
from specbridge.gateway import Gateway
from tests.support.gateway import (
    IN_PROCESS,
    http_client,
    in_process_gateway,
    initialize_message,
    running_gateway,
    write_config,
)
from tests.support.glewlwyd import Glewlwyd
from tests.support.tokens import Issuer
from tests.support.upstream import Upstream, echo, json_response

RESOURCE = f"{IN_PROCESS}/shop/mcp"
METADATA = f"{IN_PROCESS}/.well-known/oauth-protected-resource/shop/mcp"
KEY = "sbk_key-of-a-key-client"
AUTH = "auth: {type: header, name: X-Shop-Token, secrets: {r: env:SHOP_TOKEN_R, k: env:SHOP_TOKEN_K}}\n"


def clients(extra: str = "") -> str:
    return f"""\
clients:
  robot:
    apis: [shop]
    bindings: {{shop: {{path.shopId: robot-shop}}}}
    secrets: {{shop: r}}
  keyed:
    key_sha256: "{key_sha256(KEY)}"
    apis: [shop]
    bindings: {{shop: {{path.shopId: keyed-shop}}}}
    secrets: {{shop: k}}
{extra}"""


@pytest.fixture(autouse=True)
def upstream_routes(upstream: Upstream, monkeypatch: pytest.MonkeyPatch) -> None:
    upstream.route("/shops/robot-shop/orders", echo)
    upstream.route("/shops/keyed-shop/orders", echo)
    upstream.route("/products/p1", json_response({"id": "p1", "name": "Mug"}))
    monkeypatch.setenv("SHOP_TOKEN_R", "upstream-token-for-robot")
    monkeypatch.setenv("SHOP_TOKEN_K", "upstream-token-for-keyed")


@pytest.fixture
def config(tmp_path: Path, upstream: Upstream, glewlwyd: Glewlwyd) -> Path:
    glewlwyd.allow_resources(RESOURCE, f"{IN_PROCESS}/mcp")
    oauth = f"oauth: {{issuer: {glewlwyd.issuer}, scopes_supported: [mcp:tools]}}\n"
    return write_config(tmp_path, upstream, extra=AUTH + oauth, clients=clients(), allow=(glewlwyd.address,))


async def get(transport: httpx2.AsyncBaseTransport, path: str) -> httpx2.Response:
    async with httpx2.AsyncClient(transport=transport) as plain:
        return await plain.get(IN_PROCESS + path)


INITIALIZE = initialize_message("t", "0")
ACCEPT = {"Accept": "application/json, text/event-stream"}


async def post(
    transport: httpx2.AsyncBaseTransport, headers: dict[str, str] | None = None
) -> httpx2.Response:
    async with httpx2.AsyncClient(transport=transport) as plain:
        return await plain.post(RESOURCE, json=INITIALIZE, headers={**ACCEPT, **(headers or {})})


async def test_the_api_serves_its_protected_resource_metadata(config: Path, glewlwyd: Glewlwyd) -> None:
    async with in_process_gateway(config) as (transport, _):
        metadata = await get(transport, "/.well-known/oauth-protected-resource/shop/mcp")
        short = await get(transport, "/.well-known/oauth-protected-resource/mcp")
        root = await get(transport, "/.well-known/oauth-protected-resource")
        unknown = await get(transport, "/.well-known/oauth-protected-resource/nope/mcp")
    assert metadata.status_code == 200
    assert metadata.json() == {
        "resource": RESOURCE,
        "authorization_servers": [glewlwyd.issuer],
        "scopes_supported": ["mcp:tools"],
        "bearer_methods_supported": ["header"],
    }
    assert short.json()["resource"] == root.json()["resource"] == f"{IN_PROCESS}/mcp"
    assert unknown.status_code == 404


async def test_a_request_without_a_token_gets_401_pointing_to_the_metadata(config: Path) -> None:
    async with in_process_gateway(config) as (transport, _):
        response = await post(transport)
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "token-missing"
    assert extract_field_from_www_auth(response, "resource_metadata") == METADATA
    assert extract_field_from_www_auth(response, "scope") == "mcp:tools"


async def test_a_glewlwyd_token_lists_and_calls_tools_as_its_client(
    config: Path, glewlwyd: Glewlwyd, upstream: Upstream
) -> None:
    token = glewlwyd.client_credentials_token(RESOURCE)
    async with (
        in_process_gateway(config) as (transport, _),
        http_client(RESOURCE, key=token, transport=transport) as client,
    ):
        listed = await client.list_tools()
        assert "createOrder" in {tool.name for tool in listed.tools}
        result = await client.call_tool("createOrder", {"product": "mug", "quantity": 1})
    assert not result.is_error, result
    sent = upstream.requests[-1]
    assert sent.path == "/shops/robot-shop/orders"  # robot's binding
    assert sent.headers["x-shop-token"] == "upstream-token-for-robot"  # robot's secret
    assert all(token not in value for value in sent.headers.values())
    assert token.encode() not in sent.body


async def test_a_key_client_still_uses_an_oauth_api(config: Path, upstream: Upstream) -> None:
    async with (
        in_process_gateway(config) as (transport, _),
        http_client(RESOURCE, key=KEY, transport=transport) as client,
    ):
        result = await client.call_tool("createOrder", {"product": "mug", "quantity": 1})
    assert not result.is_error, result
    assert upstream.requests[-1].path == "/shops/keyed-shop/orders"


async def test_a_glewlwyd_token_issued_without_a_resource_indicator_is_refused(
    config: Path, glewlwyd: Glewlwyd
) -> None:
    token = glewlwyd.client_credentials_token(None)  # glewlwyd then puts the scope list in `aud`
    async with in_process_gateway(config) as (transport, _):
        response = await post(transport, {"Authorization": f"Bearer {token}"})
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "token-invalid"
    assert extract_field_from_www_auth(response, "error") == "invalid_token"
    assert token not in response.text and token not in response.headers["www-authenticate"]


async def test_a_token_missing_a_needed_scope_gets_403_insufficient_scope(
    tmp_path: Path, upstream: Upstream, glewlwyd: Glewlwyd
) -> None:
    glewlwyd.allow_resources(RESOURCE)
    oauth = f"oauth: {{issuer: {glewlwyd.issuer}, scopes_supported: [mcp:tools, orders:write]}}\n"
    config = write_config(
        tmp_path, upstream, extra=AUTH + oauth, clients=clients(), allow=(glewlwyd.address,)
    )
    token = glewlwyd.client_credentials_token(RESOURCE)
    async with in_process_gateway(config) as (transport, _):
        response = await post(transport, {"Authorization": f"Bearer {token}"})
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "token-scope-insufficient"
    assert extract_field_from_www_auth(response, "error") == "insufficient_scope"
    assert extract_field_from_www_auth(response, "scope") == "mcp:tools orders:write"


async def test_the_token_is_never_written_to_the_log(config: Path, glewlwyd: Glewlwyd) -> None:
    good = glewlwyd.client_credentials_token(RESOURCE)
    bad = glewlwyd.client_credentials_token(None)
    stream = io.StringIO()
    logger = logging.getLogger(LOGGER_NAME)
    saved = (logger.handlers[:], logger.level, logger.propagate)
    configure_logging(stream, level=logging.DEBUG)
    try:
        async with in_process_gateway(config) as (transport, _):
            async with http_client(RESOURCE, key=good, transport=transport) as client:
                await client.call_tool("getProduct", {"id": "p1"})
            refused = await post(transport, {"Authorization": f"Bearer {bad}"})
    finally:
        logger.handlers, logger.level, logger.propagate = saved
    assert refused.status_code == 401
    written = stream.getvalue()
    assert '"client refused"' in written and "token-invalid" in written
    assert good not in written and bad not in written
    assert good.split(".")[2] not in written  # not even its signature


async def test_an_audience_is_the_resource_wherever_the_request_came_from(
    tmp_path: Path, upstream: Upstream
) -> None:
    issuer = Issuer(upstream.url)
    upstream.route("/jwks", json_response(issuer.jwks()))
    audience = "https://mcp.example.com/tenant-a/shop/mcp"
    oauth = f"oauth: {{issuer: {issuer.issuer}, jwks_uri: {upstream.url}/jwks, audience: {audience}}}\n"
    config = write_config(tmp_path, upstream, extra=AUTH + oauth, clients=clients())
    async with in_process_gateway(config) as (transport, _):
        metadata = await get(transport, "/.well-known/oauth-protected-resource/tenant-a/shop/mcp")
        challenge = await post(transport)
        for_audience = await post(
            transport, {"Authorization": f"Bearer {issuer.mint(aud=audience, client_id='robot')}"}
        )
        for_request_url = await post(
            transport, {"Authorization": f"Bearer {issuer.mint(aud=RESOURCE, client_id='robot')}"}
        )
    assert metadata.json()["resource"] == audience
    assert extract_field_from_www_auth(challenge, "resource_metadata") == (
        "https://mcp.example.com/.well-known/oauth-protected-resource/tenant-a/shop/mcp"
    )
    assert for_audience.status_code == 200
    assert for_request_url.status_code == 401


async def test_an_unknown_client_uses_the_apis_defaults_when_allowed(
    tmp_path: Path, upstream: Upstream
) -> None:
    issuer = Issuer(upstream.url)
    upstream.route("/jwks", json_response(issuer.jwks()))
    upstream.route("/shops/default/orders", echo)
    oauth = (
        f"oauth: {{issuer: {issuer.issuer}, jwks_uri: {upstream.url}/jwks, allow_unknown_clients: true}}\n"
    )
    tools = "tools: {createOrder: {bindings: {path.shopId: default}}}\n"
    config = write_config(tmp_path, upstream, extra=oauth, tools=tools)
    token = issuer.mint(aud=RESOURCE, client_id="someone", scope="x")
    async with (
        in_process_gateway(config) as (transport, _),
        http_client(RESOURCE, key=token, transport=transport) as client,
    ):
        result = await client.call_tool("createOrder", {"product": "mug", "quantity": 1})
    assert not result.is_error, result
    assert upstream.requests[-1].path == "/shops/default/orders"


@pytest.mark.parametrize(
    ("oauth", "clients_text", "refused"),
    [
        ("oauth: {issuer: https://auth.example.com, jwks_uri: https://auth.example.com/j}\n", "", True),
        (
            "oauth: {issuer: https://auth.example.com, jwks_uri: https://auth.example.com/j, "
            "audience: https://mcp.example.com/shop/mcp}\n",
            "",
            False,
        ),
    ],
)
async def test_off_loopback_an_oauth_api_needs_its_audience(
    tmp_path: Path, upstream: Upstream, oauth: str, clients_text: str, refused: bool
) -> None:
    config = write_config(tmp_path, upstream, extra=oauth, clients=clients_text)
    gateway = Gateway(load_config(config), config_path=str(config), host="0.0.0.0")
    refusal = gateway.unsafe(gateway.config)
    assert (refusal is not None) == refused
    if refusal is not None:
        assert refusal.code == ErrorCode.SERVE_UNSAFE_BIND
        assert "audience" in refusal.message


async def test_a_reload_that_changes_oauth_applies_to_the_next_request(
    tmp_path: Path, upstream: Upstream
) -> None:
    issuer = Issuer(upstream.url)
    upstream.route("/jwks", json_response(issuer.jwks()))
    settings = f"issuer: {issuer.issuer}, jwks_uri: {upstream.url}/jwks"
    config = write_config(tmp_path, upstream, extra=f"oauth: {{{settings}}}\n")
    token = {"Authorization": f"Bearer {issuer.mint(aud=RESOURCE, client_id='someone')}"}
    async with in_process_gateway(config) as (transport, gateway):
        before = await post(transport, token)
        write_config(tmp_path, upstream, extra=f"oauth: {{{settings}, allow_unknown_clients: true}}\n")
        await gateway.reload(load_config(config))
        after = await post(transport, token)
    assert before.status_code == 403 and before.json()["error"]["code"] == "token-client-unknown"
    assert after.status_code == 200


async def test_on_loopback_without_audience_a_host_naming_another_port_names_no_other_resource(
    tmp_path: Path, upstream: Upstream
) -> None:
    # The review: a token another local MCP server (port 9999) was issued was accepted here by sending
    # `Host: localhost:9999`. The resource is the URL of the port the gateway itself listens on.
    issuer = Issuer(upstream.url)
    upstream.route("/jwks", json_response(issuer.jwks()))
    oauth = f"oauth: {{issuer: {issuer.issuer}, jwks_uri: {upstream.url}/jwks}}\n"
    config = write_config(tmp_path, upstream, extra=AUTH + oauth, clients=clients())
    other = issuer.mint(aud="http://localhost:9999/shop/mcp", client_id="robot")
    async with running_gateway(config) as (base, _), httpx2.AsyncClient() as plain:
        port = urlsplit(base).port
        ours = issuer.mint(aud=f"http://localhost:{port}/shop/mcp", client_id="robot")
        for_other = await plain.post(
            f"{base}/shop/mcp",
            json=INITIALIZE,
            headers={**ACCEPT, "Authorization": f"Bearer {other}", "Host": "localhost:9999"},
        )
        metadata = await plain.get(
            f"{base}/.well-known/oauth-protected-resource/shop/mcp", headers={"Host": "localhost:9999"}
        )
        for_us = await plain.post(
            f"{base}/shop/mcp",
            json=INITIALIZE,
            headers={**ACCEPT, "Authorization": f"Bearer {ours}", "Host": f"localhost:{port}"},
        )
    assert for_other.status_code == 401 and for_other.json()["error"]["code"] == "token-invalid"
    assert metadata.json()["resource"] == f"http://localhost:{port}/shop/mcp"
    assert for_us.status_code == 200
