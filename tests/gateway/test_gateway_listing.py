"""`tools/list` as the 2026-07-28 client caches it: a real TTL, `public` where every caller gets the same
listing and `private` where a client's bindings or tool rules shape it; the same order on every call,
after a reload and in another process."""

from __future__ import annotations

from pathlib import Path

import pytest

from specbridge.access import key_sha256, new_key
from tests.support.gateway import (
    EXTRA_OPERATION,
    SPEC,
    http_client,
    in_process_gateway,
    write_config,
)
from tests.support.methods import CountingTransport
from tests.support.processes import gateway_process
from tests.support.upstream import Upstream

MODERN = "2026-07-28"
KEY = new_key()
TURNS = 50


async def _listing_hints(config: Path, *, key: str | None = None) -> tuple[int, str]:
    async with in_process_gateway(config) as (transport, _):
        counting = CountingTransport(transport)
        async with http_client("http://127.0.0.1/mcp", mode=MODERN, key=key, transport=counting) as client:
            listed = await client.list_tools()
    return listed.ttl_ms, listed.cache_scope


async def test_a_listing_every_caller_shares_is_public_with_a_real_ttl(
    tmp_path: Path, upstream: Upstream
) -> None:
    clients = f"clients:\n  bot: {{key_sha256: {key_sha256(KEY)}, apis: [shop]}}\n"
    ttl, scope = await _listing_hints(write_config(tmp_path, upstream, clients=clients), key=KEY)
    assert ttl == 300_000 and scope == "public"


@pytest.mark.parametrize(
    "shaping",
    [
        "bindings: {shop: {path.shopId: s1}}",
        "tools: {shop: {allow: [getProduct]}}",
    ],
)
async def test_a_listing_a_clients_bindings_or_tool_rules_shape_is_private(
    tmp_path: Path, upstream: Upstream, shaping: str
) -> None:
    clients = f"clients:\n  bot: {{key_sha256: {key_sha256(KEY)}, apis: [shop], {shaping}}}\n"
    ttl, scope = await _listing_hints(write_config(tmp_path, upstream, clients=clients), key=KEY)
    assert ttl == 300_000 and scope == "private"


async def test_a_2026_client_lists_the_tools_once_in_fifty_turns(tmp_path: Path, upstream: Upstream) -> None:
    """A turn as a host runs one: list the tools, call one. Before the hints every turn listed again."""
    config = write_config(tmp_path, upstream)
    counts = {}
    for mode in (MODERN, "legacy"):
        async with in_process_gateway(config) as (transport, _):
            counting = CountingTransport(transport)
            async with http_client("http://127.0.0.1/mcp", mode=mode, transport=counting) as client:
                for _ in range(TURNS):
                    await client.list_tools()
                    await client.call_tool("listNotes", {})
        counts[mode] = counting.methods["tools/list"]
    assert counts == {MODERN: 1, "legacy": TURNS}


async def test_the_order_is_the_same_on_every_call_after_a_reload_and_in_another_process(
    tmp_path: Path, upstream: Upstream
) -> None:
    config = write_config(tmp_path, upstream)
    async with (
        in_process_gateway(config) as (transport, gateway),
        http_client("http://127.0.0.1/mcp", transport=transport) as client,
    ):
        first = [tool.name for tool in (await client.list_tools()).tools]
        again = [tool.name for tool in (await client.list_tools()).tools]
        assert await gateway.reload(gateway.config, documents={"shop"}) == []  # nothing changed
        unchanged = [tool.name for tool in (await client.list_tools()).tools]
        (tmp_path / "shop.yaml").write_text(SPEC + EXTRA_OPERATION, encoding="utf-8")
        assert await gateway.reload(gateway.config, documents={"shop"}) == ["shop"]
        grown = [tool.name for tool in (await client.list_tools()).tools]
    async with gateway_process(config) as running, http_client(f"{running.base}/mcp") as client:
        elsewhere = [tool.name for tool in (await client.list_tools()).tools]
    assert first == again == unchanged
    assert grown == elsewhere == [*first, "extraThing"]


@pytest.mark.parametrize("mode", [MODERN, "legacy"])
async def test_the_documents_logo_reaches_the_client_as_each_tools_icon(
    tmp_path: Path, upstream: Upstream, mode: str
) -> None:
    logo = "https://shop.example.com/logo.png"
    spec = SPEC.replace(
        "info: {title: Gateway fixture, version: '1'}",
        f"info: {{title: G, version: '1', x-logo: {{url: '{logo}'}}}}",
    )
    config = write_config(tmp_path, upstream, spec=spec)
    async with (
        in_process_gateway(config) as (transport, _),
        http_client("http://127.0.0.1/mcp", mode=mode, transport=transport) as client,
    ):
        tools = (await client.list_tools()).tools
    assert tools and all(
        tool.icons is not None
        and [(icon.src, icon.mime_type) for icon in tool.icons] == [(logo, "image/png")]
        for tool in tools
    )


async def test_a_tool_that_makes_a_handle_says_how_long_it_lasts(tmp_path: Path, upstream: Upstream) -> None:
    config = write_config(
        tmp_path,
        upstream,
        extra="calls: {long: true}\napprovals: {expire: 2h}\nidempotency: {ttl: 1h}\n",
        tools="tools:\n  createOrder: {requires_approval: true}\n",
    )
    config.write_text(config.read_text(encoding="utf-8") + "files: {ttl: 30m}\n", encoding="utf-8")
    async with (
        in_process_gateway(config) as (transport, _),
        http_client("http://127.0.0.1/mcp", transport=transport) as client,
    ):
        described = {tool.name: tool.description or "" for tool in (await client.list_tools()).tools}
    assert described["getLogo"].endswith("A binary answer is kept as a file whose file_id lasts 30 min.")
    assert "An approval id lasts 2 h while nobody answers it." in described["createOrder"]
    assert described["get_call_result"].endswith("A call id lasts 1 h from its call (idempotency.ttl).")
    assert "lasts" not in described["getProduct"]
