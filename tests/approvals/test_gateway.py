"""Approvals end to end: `requires_approval` tools through the gateway's Streamable HTTP app (in process)
with the SDK client, a real upstream on loopback, a person answering through the admin API, on SQLite, PostgreSQL and
Redis stores."""

from __future__ import annotations

from pathlib import Path

import anyio
import mcp_types as types
import pytest

from tests.support.approvals import MCP, ORDER, admin, approval_config, approval_id
from tests.support.gateway import http_client, in_process_gateway, text, write_config
from tests.support.stores import namespaces, store_url
from tests.support.upstream import Upstream, json_response

__all__ = ["namespaces", "store_url"]


@pytest.fixture(autouse=True)
def upstream_routes(upstream: Upstream) -> None:
    """What this module's upstream answers (the upstream itself: tests/conftest.py)."""
    upstream.route("/shops/s1/orders", json_response({"id": "o1"}, status=201))
    upstream.route("/products/p1", json_response({"id": "p1", "name": "Mug"}))


async def test_a_call_waits_for_a_person_sends_nothing_and_after_approval_is_sent_once(
    tmp_path: Path, upstream: Upstream, store_url: str
) -> None:
    config = approval_config(tmp_path, upstream, store_url)
    async with in_process_gateway(config) as (base, _), http_client(MCP, transport=base) as client:
        pending = await client.call_tool("createOrder", ORDER)
        assert pending.is_error is True
        assert text(pending).startswith("[approval-pending]")
        assert upstream.requests == []
        again = await client.call_tool("createOrder", ORDER)  # the same call attaches to it
        assert approval_id(again) == approval_id(pending)

        listed = (await admin(base, "GET", "/admin/approvals?status=pending")).json()["approvals"]
        assert [entry["id"] for entry in listed] == [approval_id(pending)]
        assert listed[0]["arguments"] == ORDER
        answer = await admin(base, "POST", f"/admin/approvals/{approval_id(pending)}/approve")
        assert answer.status_code == 200
        second = await admin(base, "POST", f"/admin/approvals/{approval_id(pending)}/approve")
        assert second.status_code == 409 and second.json()["error"]["code"] == "approval-answered"

        done = await client.call_tool("createOrder", ORDER)
        assert done.is_error is False
        assert done.structured_content == {"id": "o1"}
    assert [request.path for request in upstream.requests] == ["/shops/s1/orders"]


async def test_a_rejection_reaches_the_agent_with_its_reason_and_nothing_is_sent(
    tmp_path: Path, upstream: Upstream, store_url: str
) -> None:
    config = approval_config(tmp_path, upstream, store_url)
    async with in_process_gateway(config) as (base, _), http_client(MCP, transport=base) as client:
        pending = await client.call_tool("createOrder", ORDER)
        refused = await admin(
            base, "POST", f"/admin/approvals/{approval_id(pending)}/reject", {"reason": "two is too many"}
        )
        assert refused.status_code == 200
        result = await client.call_tool("createOrder", ORDER)
    assert result.is_error is True
    assert text(result).startswith("[approval-rejected]")
    assert "two is too many" in text(result)
    assert upstream.requests == []


async def test_a_waiting_call_gets_the_real_result_when_a_person_approves_in_time(
    tmp_path: Path, upstream: Upstream
) -> None:
    config = approval_config(tmp_path, upstream, f"sqlite:///{tmp_path / 'state.db'}", wait=20)
    results: list[types.CallToolResult] = []
    async with in_process_gateway(config) as (base, _), http_client(MCP, transport=base) as client:

        async def call() -> None:
            results.append(await client.call_tool("createOrder", ORDER))

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(call)
            with anyio.fail_after(10):
                while True:  # bounded: the call above stores its approval at once
                    listed = (await admin(base, "GET", "/admin/approvals?status=pending")).json()
                    if listed["approvals"]:
                        break
                    await anyio.wait_all_tasks_blocked()
            pending_id = listed["approvals"][0]["id"]
            assert (await admin(base, "POST", f"/admin/approvals/{pending_id}/approve")).status_code == 200
    assert results[0].is_error is False
    assert results[0].structured_content == {"id": "o1"}
    assert len(upstream.requests) == 1


async def test_bad_arguments_are_refused_before_any_approval_is_asked_for(
    tmp_path: Path, upstream: Upstream
) -> None:
    config = approval_config(tmp_path, upstream, f"sqlite:///{tmp_path / 'state.db'}")
    async with in_process_gateway(config) as (base, _), http_client(MCP, transport=base) as client:
        result = await client.call_tool("createOrder", {"shopId": "s1", "product": "p1", "quantity": 0})
        listed = (await admin(base, "GET", "/admin/approvals?status=all")).json()["approvals"]
    assert text(result).startswith("[arguments-invalid]")
    assert listed == []
    assert upstream.requests == []


async def test_tools_without_approval_never_open_the_store(tmp_path: Path, upstream: Upstream) -> None:
    config = write_config(tmp_path, upstream)
    async with in_process_gateway(config) as (base, gateway), http_client(MCP, transport=base) as client:
        result = await client.call_tool("getProduct", {"id": "p1"})
        assert gateway.ledger.store is None
    assert result.is_error is False
    assert not (tmp_path / ".specbridge").exists()
