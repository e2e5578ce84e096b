"""`kill -9` of the real gateway (`specbridge serve --transport http` in its own process) with one approval
pending and one approved call on the wire to an upstream that holds its answer: after a restart on the
same store nothing is lost (the pending one is still pending, listed by `specbridge approvals list`) and
nothing is sent twice (the interrupted call reads outcome unknown; the upstream saw one request)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import mcp_types as types
import pytest

from specbridge.approvals import Approvals
from specbridge.store import Status, open_store
from tests.support.approvals import ADMIN_KEY, approval_config, approval_id
from tests.support.gateway import http_client, text
from tests.support.processes import admin_post, gateway_process
from tests.support.stores import namespaces, store_url
from tests.support.upstream import Gate, Upstream

__all__ = ["namespaces", "store_url"]

WAITING = {"shopId": "s1", "product": "p1", "quantity": 1}
INTERRUPTED = {"shopId": "s1", "product": "p1", "quantity": 2}
LEASE = 120.0  # the gateway's execution lease (ApprovalGate's default)


@pytest.fixture
def gate(upstream: Upstream) -> Iterator[Gate]:
    """Orders are answered only once the test opens the gate (bounded): the gateway is mid-send until then."""
    held = Gate(limit=60)
    upstream.route("/shops/s1/orders", held.reply({"id": "o1"}, status=201))
    try:
        yield held
    finally:
        held.open.set()


async def approvals_list(config: Path) -> list[dict[str, object]]:
    """`specbridge approvals list --status pending --format json`, as an operator runs it."""
    command = [sys.executable, "-m", "specbridge", "approvals", "list", "--config", str(config)]
    done = await anyio.run_process([*command, "--status", "pending", "--format", "json"], env={**os.environ})
    listed: list[dict[str, object]] = json.loads(done.stdout)["approvals"]
    return listed


async def test_a_killed_gateway_loses_no_approval_and_never_sends_a_call_twice(
    tmp_path: Path, upstream: Upstream, gate: Gate, store_url: str
) -> None:
    config = approval_config(tmp_path, upstream, store_url)
    async with gateway_process(config) as first:
        async with http_client(f"{first.base}/mcp") as client:
            waiting_id = approval_id(await client.call_tool("createOrder", WAITING))
            chosen_id = approval_id(await client.call_tool("createOrder", INTERRUPTED))
        assert (
            await admin_post(first.base, ADMIN_KEY, f"/admin/approvals/{chosen_id}/approve")
        ).status_code == 200

        async def send_it() -> None:
            # The gateway dies under this call: its client fails as a client does when the server vanishes.
            with contextlib.suppress(Exception):
                async with http_client(f"{first.base}/mcp") as client:
                    await client.call_tool("createOrder", INTERRUPTED)

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(send_it)
            with anyio.fail_after(30):  # the approved call is on the wire, the upstream holds its answer
                await anyio.to_thread.run_sync(gate.arrived.wait, 30)
            first.kill()
            with anyio.fail_after(30):
                await first.process.wait()
    assert first.process.returncode == -signal.SIGKILL

    assert [entry["id"] for entry in await approvals_list(config)] == [waiting_id]
    async with gateway_process(config) as second, http_client(f"{second.base}/mcp") as client:
        again = await client.call_tool("createOrder", WAITING)
        assert text(again).startswith("[approval-pending]") and approval_id(again) == waiting_id
        on_the_wire = await client.call_tool("createOrder", INTERRUPTED)
        assert text(on_the_wire).startswith("[approval-pending]")  # within its lease: being sent, not resent
        assert "being sent" in text(on_the_wire)

        # The lease passes (a later clock instead of two minutes' sleep): the call reads outcome unknown.
        async with open_store(store_url) as store:
            later = Approvals(store, clock=lambda: time.time() + LEASE + 1)
            assert (await later.get(chosen_id)).status is Status.OUTCOME_UNKNOWN
        unknown: types.CallToolResult = await client.call_tool("createOrder", INTERRUPTED)
        assert text(unknown).startswith("[approval-outcome-unknown]")
        assert chosen_id in text(unknown)
    assert [request.path for request in upstream.requests] == ["/shops/s1/orders"]
