"""Once, and the truth about it (issue 30), through the gateway (in process, the SDK client, a real
upstream on loopback, SQLite, PostgreSQL and Redis): an idempotency key, an approval, a rate limit, an
OAuth token and the store's own waits, tried together as an agent and an operator use them. Each
logical call reaches the API once, and every answer says truly whether it was sent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest

from specbridge.store import StoreError
from tests.support.approvals import ORDER, admin, approval_config, approval_id
from tests.support.gateway import IN_PROCESS, http_client, in_process_gateway, text, write_config
from tests.support.oauth_api import STORE_KEY
from tests.support.stores import namespaces, store_url
from tests.support.upstream import Gate, RecordedRequest, Reply, Upstream, json_response

__all__ = ["namespaces", "store_url"]

MCP = f"{IN_PROCESS}/mcp"
KEYED = {**ORDER, "idempotency_key": "refund-42"}


@pytest.fixture(autouse=True)
def orders(upstream: Upstream) -> None:
    upstream.route("/shops/s1/orders", json_response({"id": "o1"}, status=201))


def config_with(path: Path, more: str) -> Path:
    path.write_text(path.read_text(encoding="utf-8") + more, encoding="utf-8")
    return path


async def sent_by_the_gateway(asgi: Any, identifier: str) -> None:
    """A person approves; the gateway's sender sends it (`approvals.send: on_answer`); returns once the
    approval is done (bounded)."""
    answered = await admin(asgi, "POST", f"/admin/approvals/{identifier}/approve")
    assert answered.status_code == 200, answered.text
    with anyio.fail_after(20):
        while (await admin(asgi, "GET", f"/admin/approvals/{identifier}")).json()["status"] != "done":
            await anyio.sleep(0.02)


async def pending_ids(asgi: Any) -> list[str]:
    listed = (await admin(asgi, "GET", "/admin/approvals?status=pending")).json()["approvals"]
    return [entry["id"] for entry in listed]


async def test_a_key_outlives_an_approval_the_gateway_sent_and_nothing_is_asked_or_sent_again(
    tmp_path: Path, upstream: Upstream, store_url: str
) -> None:
    config = approval_config(tmp_path, upstream, store_url)
    async with in_process_gateway(config) as (asgi, _), http_client(MCP, transport=asgi) as agent:
        identifier = approval_id(await agent.call_tool("createOrder", KEYED))
        await sent_by_the_gateway(asgi, identifier)
        first = await agent.call_tool("createOrder", KEYED)
        second = await agent.call_tool("createOrder", KEYED)
        still = await pending_ids(asgi)
    assert first.structured_content == second.structured_content == {"id": "o1"}, text(second)
    assert still == []
    assert len(upstream.requests) == 1


async def test_the_call_after_get_call_result_gets_the_outcome_saying_it_was_already_sent(
    tmp_path: Path, upstream: Upstream, store_url: str
) -> None:
    config = approval_config(tmp_path, upstream, store_url)
    async with in_process_gateway(config) as (asgi, _), http_client(MCP, transport=asgi) as agent:
        identifier = approval_id(await agent.call_tool("createOrder", ORDER))
        await sent_by_the_gateway(asgi, identifier)
        by_id = await agent.call_tool("get_call_result", {"call_id": identifier})
        again = await agent.call_tool("createOrder", ORDER)  # as the pending answer told it to
        still = await pending_ids(asgi)
    assert by_id.structured_content == again.structured_content == {"id": "o1"}
    assert "already sent" in text(again) and identifier in text(again)
    assert still == []
    assert len(upstream.requests) == 1


async def test_a_rate_limit_never_refuses_the_retry_of_a_call_that_was_approved_and_sent(
    tmp_path: Path, upstream: Upstream, store_url: str
) -> None:
    config = config_with(
        approval_config(tmp_path, upstream, store_url), "limits: {per_tool: {createOrder: 1/hour}}\n"
    )
    async with in_process_gateway(config) as (asgi, _), http_client(MCP, transport=asgi) as agent:
        identifier = approval_id(await agent.call_tool("createOrder", ORDER))
        await sent_by_the_gateway(asgi, identifier)
        retry = await agent.call_tool("createOrder", ORDER)
    assert not retry.is_error and retry.structured_content == {"id": "o1"}, text(retry)
    assert len(upstream.requests) == 1


class TokenEndpoint:
    """A token endpoint whose tokens are stale as soon as they are handed out; 503 once `down`."""

    def __init__(self, upstream: Upstream) -> None:
        self.down = False
        upstream.route("/token", self.answer)

    def answer(self, request: RecordedRequest) -> Reply:
        if self.down:
            return json_response({"error": "temporarily_unavailable"}, status=503)
        return json_response({"access_token": "at-1", "token_type": "Bearer", "expires_in": 0.001})


async def test_a_keys_stored_result_needs_no_token_when_the_token_endpoint_is_down(
    tmp_path: Path, upstream: Upstream, store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SPECBRIDGE_TEST_STORE_KEY", STORE_KEY)
    monkeypatch.setenv("GW_SECRET", "gw-secret")
    endpoint = TokenEndpoint(upstream)
    auth = (
        f"auth: {{type: oauth2_client_credentials, token_url: '{upstream.url}/token', client_id: gw, "
        "client_secret: 'env:GW_SECRET'}\n"
    )
    config = write_config(tmp_path, upstream, extra=auth)
    config_with(config, f"store: '{store_url}'\nstore_key: 'env:SPECBRIDGE_TEST_STORE_KEY'\n")
    async with in_process_gateway(config) as (asgi, _), http_client(MCP, transport=asgi) as agent:
        first = await agent.call_tool("createOrder", KEYED)
        endpoint.down = True  # the token ran out, and the endpoint is briefly down
        again = await agent.call_tool("createOrder", KEYED)
    assert first.structured_content == again.structured_content == {"id": "o1"}, text(again)
    assert [request.path for request in upstream.requests if request.path != "/token"] == ["/shops/s1/orders"]


async def test_a_keys_retry_behind_a_slow_store_answers_call_pending_within_the_deadline(
    tmp_path: Path, upstream: Upstream, store_url: str
) -> None:
    gate = Gate()
    upstream.route("/shops/s1/orders", gate.reply({"id": "o1"}, status=201))
    config = config_with(write_config(tmp_path, upstream), f"store: '{store_url}'\n")
    results: list[types.CallToolResult] = []
    async with (
        in_process_gateway(config, deadline=4) as (asgi, gateway),
        http_client(MCP, transport=asgi) as agent,
        anyio.create_task_group() as calls,
    ):

        async def first() -> None:
            results.append(await agent.call_tool("createOrder", KEYED))

        calls.start_soon(first)
        assert await anyio.to_thread.run_sync(gate.arrived.wait, 20)  # the first call is on the wire
        store = gateway.ledger.store
        marker = store.read_marker

        async def slow_marker() -> Any:  # a pool waiting for a connection: the store's 2 s of the 4
            await anyio.sleep(2)
            return await marker()

        store.read_marker = slow_marker
        retry = await agent.call_tool("createOrder", KEYED)
        store.read_marker = marker
        gate.open.set()
    assert retry.is_error and text(retry).startswith("[call-pending]"), text(retry)
    assert results[0].structured_content == {"id": "o1"}
    assert len(upstream.requests) == 1


async def test_a_store_failing_while_the_gateway_sends_an_approval_never_tells_the_agent_nothing_was_sent(
    tmp_path: Path, upstream: Upstream, store_url: str
) -> None:
    gate = Gate()
    upstream.route("/shops/s1/orders", gate.reply({"id": "o1"}, status=201))
    config = approval_config(tmp_path, upstream, store_url)
    async with (
        in_process_gateway(config) as (asgi, gateway),
        http_client(MCP, transport=asgi) as agent,
    ):
        identifier = approval_id(await agent.call_tool("createOrder", ORDER))
        assert (await admin(asgi, "POST", f"/admin/approvals/{identifier}/approve")).status_code == 200
        assert await anyio.to_thread.run_sync(gate.arrived.wait, 20)  # the gateway's sender sends it
        store = gateway.ledger.store
        kept = {}
        for name in ("attach_or_create", "get_approval", "get_claim", "latest_approval", "read_marker"):
            if hasattr(store, name):
                kept[name] = getattr(store, name)

                async def fails(*args: Any, **kwargs: Any) -> Any:
                    raise StoreError("the store cannot be reached (test)")

                setattr(store, name, fails)
        told = await agent.call_tool("createOrder", ORDER)  # the agent retries during the outage
        for name, method in kept.items():
            setattr(store, name, method)
        gate.open.set()
    assert told.is_error and text(told).startswith("[store-unavailable]"), text(told)
    assert "nothing was sent" not in text(told)
    assert len(upstream.requests) == 1
