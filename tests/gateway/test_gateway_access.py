"""Per-client tool access over MCP (issue 19 item 3): a tool a client may not use is absent from its
`tools/list` and search results, and calling it, directly or through `call_tool`, is answered exactly as
a tool that does not exist; per key client and per token scope, with the official SDK client."""

from __future__ import annotations

import logging
from pathlib import Path

import httpx2
import pytest
from mcp.shared.exceptions import MCPError

from specbridge.access import key_sha256
from specbridge.config import load_config
from specbridge.gateway import Gateway
from tests.support.gateway import IN_PROCESS, http_client, in_process_gateway, text, write_config
from tests.support.tokens import Issuer
from tests.support.upstream import Upstream, json_response

ERAS = ["legacy", "2026-07-28"]
READER, BUYER = "sbk_key-of-the-reader", "sbk_key-of-the-buyer"
RESOURCE = f"{IN_PROCESS}/shop/mcp"
ORDER_ARGS = {"shopId": "s1", "product": "p", "quantity": 1}
CLIENTS = f"""\
clients:
  reader:
    key_sha256: "{key_sha256(READER)}"
    apis: [shop]
    tools: {{shop: {{allow: ["get*", listNotes]}}}}
  buyer:
    key_sha256: "{key_sha256(BUYER)}"
    apis: [shop]
    bindings: {{shop: {{path.shopId: s1}}}}
    tools: {{shop: {{deny: [getLogo, "slow*"]}}}}
"""


@pytest.fixture(autouse=True)
def upstream_routes(upstream: Upstream) -> None:
    upstream.route("/products/p1", json_response({"id": "p1", "name": "Mug"}))
    upstream.route("/shops/s1/orders", json_response({"id": "o1"}, status=201))
    upstream.route("/notes", json_response({"notes": []}))


async def refusal(client: object, name: str, arguments: dict[str, object]) -> MCPError:
    with pytest.raises(MCPError) as caught:
        await client.call_tool(name, arguments)  # type: ignore[attr-defined]
    return caught.value


@pytest.mark.parametrize("era", ERAS)
async def test_each_key_client_lists_and_calls_only_its_tools(
    tmp_path: Path, upstream: Upstream, era: str
) -> None:
    config = write_config(tmp_path, upstream, clients=CLIENTS)
    async with in_process_gateway(config) as (asgi, _):
        async with http_client(RESOURCE, mode=era, key=READER, transport=asgi) as reader:
            listed = [tool.name for tool in (await reader.list_tools()).tools]
            denied = await refusal(reader, "createOrder", {"shopId": "s1", "product": "p", "quantity": 1})
            malformed = await refusal(reader, "createOrder", {"idempotency_key": 5})
            absent = await refusal(reader, "noSuchTool", {})
            allowed = await reader.call_tool("getProduct", {"id": "p1"})
        async with http_client(RESOURCE, mode=era, key=BUYER, transport=asgi) as buyer:
            theirs = [tool.name for tool in (await buyer.list_tools()).tools]
            bought = await buyer.call_tool("createOrder", {"product": "p", "quantity": 1})
    assert listed == ["getProduct", "listNotes", "getLogo"]
    assert theirs == ["getProduct", "listNotes", "createOrder"]
    assert allowed.structured_content == {"id": "p1", "name": "Mug"}
    assert bought.structured_content == {"id": "o1"}
    for error in (denied, malformed, absent):  # a tool it may not use reads as one that does not exist
        assert error.code == absent.code == -32602
        assert error.error.data == {"code": "tool-unknown"}
    assert str(denied) == str(malformed) == str(absent).replace("noSuchTool", "createOrder")
    assert [request.path for request in upstream.requests] == ["/products/p1", "/shops/s1/orders"]


async def test_search_mode_finds_lists_and_calls_only_the_clients_tools(
    tmp_path: Path, upstream: Upstream
) -> None:
    config = write_config(tmp_path, upstream, extra="search: on\n", clients=CLIENTS)
    async with (
        in_process_gateway(config) as (asgi, _),
        http_client(RESOURCE, key=READER, transport=asgi) as reader,
    ):
        listing = (await reader.list_tools()).tools
        found = await reader.call_tool("search_tools", {"query": "place an order", "limit": 20})
        denied = await reader.call_tool("call_tool", {"name": "createOrder", "arguments": {"shopId": "s1"}})
        absent = await reader.call_tool("call_tool", {"name": "noSuchTool", "arguments": {}})
        called = await reader.call_tool("call_tool", {"name": "getProduct", "arguments": {"id": "p1"}})
    assert [tool.name for tool in listing] == ["search_tools", "call_tool"]
    assert "has 3 operations" in (listing[0].description or "")
    assert found.structured_content is not None
    names = {tool["name"] for tool in found.structured_content["tools"]}
    assert names and names <= {"getProduct", "listNotes", "getLogo"}
    assert denied.is_error and absent.is_error
    assert text(denied) == text(absent).replace("noSuchTool", "createOrder")
    assert called.structured_content == {"id": "p1", "name": "Mug"}
    assert [request.path for request in upstream.requests] == ["/products/p1"]


def oauth_config(tmp_path: Path, upstream: Upstream, issuer: Issuer) -> Path:
    upstream.route("/jwks", json_response(issuer.jwks()))
    oauth = (
        f"oauth: {{issuer: {issuer.issuer}, jwks_uri: {upstream.url}/jwks, allow_unknown_clients: true,"
        ' scopes: {"shop:read": ["get*", listNotes], "shop:order": [createOrder]}}\n'
    )
    return write_config(tmp_path, upstream, extra=oauth, clients=CLIENTS)


async def test_a_tokens_scopes_decide_its_listing_and_its_calls(tmp_path: Path, upstream: Upstream) -> None:
    issuer = Issuer(upstream.url)
    config = oauth_config(tmp_path, upstream, issuer)
    reading = issuer.mint(aud=RESOURCE, client_id="someone", scope="shop:read")
    ordering = issuer.mint(aud=RESOURCE, client_id="someone", scope="shop:read shop:order")
    nothing = issuer.mint(aud=RESOURCE, client_id="someone", scope="profile")
    async with in_process_gateway(config) as (asgi, gateway):
        seen = {}
        for name, token in (("reading", reading), ("ordering", ordering), ("nothing", nothing)):
            async with http_client(RESOURCE, key=token, transport=asgi) as client:
                seen[name] = [tool.name for tool in (await client.list_tools()).tools]
                if name == "reading":
                    denied = await refusal(
                        client, "createOrder", {"shopId": "s1", "product": "p", "quantity": 1}
                    )
                if name == "ordering":
                    ordered = await client.call_tool(
                        "createOrder", {"shopId": "s1", "product": "p", "quantity": 1}
                    )
        async with http_client(RESOURCE, key=READER, transport=asgi) as keyed:  # a key client: its own rules
            seen["reader's key"] = [tool.name for tool in (await keyed.list_tools()).tools]
        kept = len(gateway.state("shop").listings)
    assert seen == {
        "reading": ["getProduct", "listNotes", "getLogo"],
        "ordering": ["getProduct", "listNotes", "getLogo", "createOrder"],
        "nothing": [],
        "reader's key": ["getProduct", "listNotes", "getLogo"],
    }
    assert denied.error.data == {"code": "tool-unknown"}
    assert ordered.structured_content == {"id": "o1"}
    assert kept == 4  # one listing per client and scopes: one token's listing is never another's


async def test_in_search_mode_a_token_finds_only_what_its_scopes_give(
    tmp_path: Path, upstream: Upstream
) -> None:
    issuer = Issuer(upstream.url)
    config = oauth_config(tmp_path, upstream, issuer)
    config.write_text(config.read_text(encoding="utf-8").replace("    oauth:", "    search: on\n    oauth:"))
    reading = issuer.mint(aud=RESOURCE, client_id="someone", scope="shop:read")
    ordering = issuer.mint(aud=RESOURCE, client_id="someone", scope="shop:order")
    found: dict[str, set[str]] = {}
    async with in_process_gateway(config) as (asgi, _):
        for name, token in (("reading", reading), ("ordering", ordering)):
            async with http_client(RESOURCE, key=token, transport=asgi) as client:
                answer = await client.call_tool("search_tools", {"query": "place an order", "limit": 20})
                assert answer.structured_content is not None
                found[name] = {tool["name"] for tool in answer.structured_content["tools"]}
                if name == "reading":
                    denied = await client.call_tool(
                        "call_tool", {"name": "createOrder", "arguments": ORDER_ARGS}
                    )
    assert found == {"reading": {"getProduct", "listNotes", "getLogo"}, "ordering": {"createOrder"}}
    assert denied.is_error and "[tool-unknown]" in text(denied)
    assert upstream.requests == [request for request in upstream.requests if request.path == "/jwks"]


async def test_the_metadata_tells_clients_the_scopes_that_give_tools(
    tmp_path: Path, upstream: Upstream
) -> None:
    config = oauth_config(tmp_path, upstream, Issuer(upstream.url))
    async with in_process_gateway(config) as (asgi, _), httpx2.AsyncClient(transport=asgi) as plain:
        metadata = (await plain.get(f"{IN_PROCESS}/.well-known/oauth-protected-resource/shop/mcp")).json()
        challenge = (await plain.post(RESOURCE, json={})).headers["www-authenticate"]
    assert metadata["scopes_supported"] == ["shop:read", "shop:order"]
    assert 'scope="shop:read shop:order"' in challenge


async def test_a_rule_naming_no_tool_stops_the_start_and_a_reload_keeps_the_rules_served(
    tmp_path: Path, upstream: Upstream, caplog: pytest.LogCaptureFixture
) -> None:
    bad = CLIENTS.replace('"get*", listNotes', '"get*", listNote')
    config = write_config(tmp_path, upstream, clients=bad)
    with pytest.raises(
        Exception, match=r"clients\.reader\.tools\.shop\.allow\[1\]: names no tool .*listNotes"
    ):
        await Gateway(load_config(config)).start()
    config = write_config(tmp_path, upstream, clients=CLIENTS)
    async with in_process_gateway(config) as (asgi, gateway):
        write_config(tmp_path, upstream, clients=bad)
        with caplog.at_level(logging.ERROR, logger="specbridge.gateway"):
            assert await gateway.reload(load_config(config)) == []
        async with http_client(RESOURCE, key=READER, transport=asgi) as reader:
            listed = [tool.name for tool in (await reader.list_tools()).tools]
    assert listed == ["getProduct", "listNotes", "getLogo"]
    assert "config reload refused" in caplog.text
