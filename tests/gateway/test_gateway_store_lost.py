"""A store that lost its data while the gateway ran, on SQLite, PostgreSQL and Redis: the gateway's
marker is replaced (as when another gateway starts on the emptied store), and then calls with an
idempotency key and approved calls are refused with `store-unavailable` (nothing sent, the message says
to run `specbridge store check`) until an operator acknowledges; calls without either go on."""

from __future__ import annotations

from pathlib import Path

import pytest

from specbridge.store import ANY, Marker, MarkerKind, open_store
from tests.gateway._keys import MCP, ORDER, config_with, orders
from tests.support.approvals import admin, approval_config, approval_id
from tests.support.gateway import http_client, in_process_gateway, text
from tests.support.stores import namespaces, store_url
from tests.support.upstream import Upstream, json_response

__all__ = ["namespaces", "store_url"]


@pytest.fixture(autouse=True)
def upstream_routes(upstream: Upstream) -> None:
    upstream.route("/shops/s1/orders", json_response({"id": "o1"}, status=201))
    upstream.route("/products/p1", json_response({"id": "p1"}))


async def emptied(store_url: str) -> None:
    """What a gateway started on an emptied store leaves: a first marker of its own."""
    async with open_store(store_url) as other:
        await other.write_marker(Marker.new(MarkerKind.STARTED, 2.0), replace=ANY)


async def acknowledged(store_url: str) -> None:
    async with open_store(store_url) as operator:
        await operator.write_marker(Marker.new(MarkerKind.ACKNOWLEDGED, 3.0), replace=ANY)


async def test_keyed_calls_are_refused_after_the_store_lost_its_data_until_acknowledged(
    tmp_path: Path, upstream: Upstream, store_url: str
) -> None:
    config = config_with(tmp_path, upstream, store_url)
    async with in_process_gateway(config) as (asgi, _), http_client(MCP, transport=asgi) as client:
        first = await client.call_tool("createOrder", {**ORDER, "idempotency_key": "order-1"})
        assert first.is_error is not True, text(first)
        await emptied(store_url)
        again = await client.call_tool("createOrder", {**ORDER, "idempotency_key": "order-1"})
        fresh = await client.call_tool("createOrder", {**ORDER, "idempotency_key": "order-2"})
        plain = await client.call_tool("getProduct", {"id": "p1"})
        assert len(orders(upstream)) == 1
        for refused in (again, fresh):
            assert text(refused).startswith("[store-unavailable]"), text(refused)
            assert "lost its data" in text(refused) and "specbridge store check" in text(refused)
        assert plain.is_error is not True
        await acknowledged(store_url)
        after = await client.call_tool("createOrder", {**ORDER, "idempotency_key": "order-2"})
    assert after.structured_content == {"id": "o1"}
    assert len(orders(upstream)) == 2


async def test_an_approved_call_is_not_sent_after_the_store_lost_its_data(
    tmp_path: Path, upstream: Upstream, store_url: str
) -> None:
    config = approval_config(tmp_path, upstream, store_url)
    async with in_process_gateway(config) as (asgi, _), http_client(MCP, transport=asgi) as client:
        approval = approval_id(await client.call_tool("createOrder", ORDER))
        await emptied(store_url)
        assert (await admin(asgi, "POST", f"/admin/approvals/{approval}/approve")).status_code == 200
        refused = await client.call_tool("createOrder", ORDER)
    assert text(refused).startswith("[store-unavailable]"), text(refused)
    assert "lost its data" in text(refused)
    assert orders(upstream) == []
