"""Two gateway processes (`specbridge serve --transport http`) on one PostgreSQL and on one Redis store:
the same approval approved through both admin APIs at the same moment is answered once (one 200, one
409 `approval-answered`), and the call is sent upstream exactly once whichever instance the agent asks;
a long call repeated on the other instance attaches to the running one (the same call id) and is sent
once."""

from __future__ import annotations

import re
from pathlib import Path

import anyio
import httpx
import mcp_types as types
import pytest

from tests.support.approvals import ADMIN_KEY, ORDER, approval_config, approval_id
from tests.support.gateway import http_client, text, write_config
from tests.support.processes import admin_post, gateway_processes
from tests.support.stores import namespaces, shared_store
from tests.support.upstream import Gate, Upstream, json_response

__all__ = ["namespaces", "shared_store"]


@pytest.fixture(autouse=True)
def upstream_routes(upstream: Upstream) -> None:
    upstream.route("/shops/s1/orders", json_response({"id": "o1"}, status=201))


async def test_one_approval_approved_on_two_instances_at_once_is_answered_once_and_sent_once(
    tmp_path: Path, upstream: Upstream, shared_store: str
) -> None:
    config = approval_config(tmp_path, upstream, shared_store)
    async with gateway_processes(config, 2) as (one, two):
        async with http_client(f"{one.base}/mcp") as client:
            pending_id = approval_id(await client.call_tool("createOrder", ORDER))

        answers: list[httpx.Response] = []

        async def approve(base: str, ready: anyio.Event) -> None:
            await ready.wait()
            answers.append(await admin_post(base, ADMIN_KEY, f"/admin/approvals/{pending_id}/approve"))

        go = anyio.Event()
        with anyio.fail_after(30):
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(approve, one.base, go)
                tasks.start_soon(approve, two.base, go)
                await anyio.wait_all_tasks_blocked()
                go.set()
        assert sorted(answer.status_code for answer in answers) == [200, 409]
        refused = next(answer for answer in answers if answer.status_code == 409)
        assert refused.json()["error"]["code"] == "approval-answered"

        # The agent asks both instances at once for the approved call's result: it is sent once.
        results: list[types.CallToolResult] = []

        async def call(base: str) -> None:
            async with http_client(f"{base}/mcp") as agent:
                results.append(await agent.call_tool("createOrder", ORDER))

        with anyio.fail_after(60):
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(call, one.base)
                tasks.start_soon(call, two.base)
    assert [request.path for request in upstream.requests] == ["/shops/s1/orders"]
    assert any(result.structured_content == {"id": "o1"} for result in results), [text(r) for r in results]


async def test_a_long_call_repeated_on_the_other_instance_attaches_to_it_and_is_sent_once(
    tmp_path: Path, upstream: Upstream, shared_store: str
) -> None:
    gate = Gate(limit=60)
    upstream.route("/shops/s1/orders", gate.reply({"id": "o-long"}, status=201))
    config = write_config(tmp_path, upstream)
    config.write_text(
        config.read_text(encoding="utf-8") + f"calls: {{long: true, wait: 0.5}}\nstore: '{shared_store}'\n",
        encoding="utf-8",
    )
    order = {"shopId": "s1", "product": "p1", "quantity": 2}
    try:
        async with gateway_processes(config, 2) as (one, two):
            async with http_client(f"{one.base}/mcp") as first:
                await first.list_tools()
                pending = await first.call_tool("createOrder", order)
            with anyio.fail_after(30):
                await anyio.to_thread.run_sync(gate.arrived.wait, 30)
            async with http_client(f"{two.base}/mcp") as second:
                await second.list_tools()
                again = await second.call_tool("createOrder", order)
                gate.open.set()
                with anyio.fail_after(30):
                    while text(done := await second.call_tool("createOrder", order)).startswith(
                        "[call-pending]"
                    ):
                        pass
    finally:
        gate.open.set()
    call_id = re.findall(r"call id ([0-9a-f]{32})", text(pending))
    assert call_id and call_id == re.findall(r"call id ([0-9a-f]{32})", text(again)), text(again)
    assert done.structured_content == {"id": "o-long"}, text(done)
    assert [request.path for request in upstream.requests] == ["/shops/s1/orders"]
