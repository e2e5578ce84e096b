"""A long call repeated on another instance, and a rolling restart by SIGTERM, under round-robin
(issue 26 items 1 and 6). Both failed before: the repeat of a running long call was sent again by each
instance it reached (three upstream requests for one call), and SIGTERM ended an instance while its
calls were in flight (`gateway-internal`, then outcome unknown on retry)."""

from __future__ import annotations

import re
import secrets
import signal
from typing import Any

import anyio
import httpx
import mcp_types as types
import pytest

from tests.cluster._cluster import Cluster, agent, code, load, text
from tests.cluster._history import History
from tests.cluster._servers import until
from tests.support.upstream import Gate

pytestmark = pytest.mark.cluster


async def test_a_long_call_repeated_on_each_instance_is_sent_once(cluster: Cluster) -> None:
    shop = "l" + secrets.token_hex(4)
    gate = Gate(limit=60)
    cluster.upstream.route(f"/shops/{shop}/orders", gate.reply({"id": shop}, status=201))
    order = {"shopId": shop, "product": "p"}
    pending = []
    try:
        for gateway in cluster.gateways:  # the agent repeats the call, as call-pending tells it to
            async with agent(gateway.base + "/reports/mcp") as client:
                pending.append(await client.call_tool("createOrder", order))
        assert {code(result) for result in pending} == {"call-pending"}, [text(r) for r in pending]
        ids = {
            re.findall(r"call[_ ]id[^A-Za-z0-9]*([A-Za-z0-9]{16,})", text(result))[-1] for result in pending
        }
        assert len(ids) == 1  # every repeat attached to the one running call
        assert cluster.requests_to(f"/shops/{shop}/orders") == 1
    finally:
        gate.open.set()
    (call_id,) = ids
    with anyio.fail_after(30):
        while True:
            (result,) = await load(
                cluster.base + "/reports/mcp", [("get_call_result", {"call_id": call_id})], clients=1
            )
            if code(result) != "call-pending":
                break
    assert code(result) is None, text(result)
    assert cluster.requests_to(f"/shops/{shop}/orders") == 1


async def _calling(
    url: str, calls: list[dict[str, Any]], outcomes: list[str], stop: anyio.Event, history: History
) -> None:
    """Keyed calls one after another until `stop`, each outcome's code (or the exception) kept, and
    every answer recorded in `history`. A call refused with `gateway-stopping` (nothing sent) is made
    again, as its message tells the agent to."""
    async with agent(url) as client:
        for order in calls:
            if stop.is_set():
                return
            for _ in range(20):
                try:
                    result: types.CallToolResult = await client.call_tool("createOrder", order)
                except Exception as error:  # a JSON-RPC error, a dropped connection: lost work
                    outcomes.append(f"{type(error).__name__}: {error}")
                    break
                history.record("createOrder", order, result)
                if code(result) != "gateway-stopping":
                    outcomes.append(code(result) or "ok")
                    break


def _health_after_stop(base: str) -> int:
    """What /healthz answers once the stop is seen: 503 while draining, 0 once nothing listens."""
    seen: list[int] = []

    def stopped() -> bool:
        try:
            seen.append(httpx.get(base + "/healthz", timeout=5).status_code)
        except httpx.HTTPError:
            seen.append(0)
        return seen[-1] != 200

    until("the instance leaves the rotation", stopped, 30)
    return seen[-1]


async def test_a_rolling_restart_by_sigterm_loses_no_call_and_sends_each_key_once(
    redis_cluster: Cluster,
) -> None:
    """On Redis only (the drain is the gateway's, the same on every store; the suite stays short)."""
    cluster = redis_cluster
    shop = "t" + secrets.token_hex(4)
    orders = []
    for n in range(200):
        path = f"/shops/{shop}-{n}/orders"
        # each answer takes 3 s: longer than an instance lived after SIGTERM before the drain (2.3 s)
        cluster.upstream.route(path, Gate(limit=3).reply({"n": n}, status=201))
        orders.append({"shopId": f"{shop}-{n}", "product": "p", "idempotency_key": f"{shop}-{n}"})
    outcomes: list[str] = []
    draining: list[int] = []
    stop = anyio.Event()
    history = History(cluster.upstream)
    try:
        async with anyio.create_task_group() as tasks:
            for worker in range(8):
                url = cluster.base + "/shop/mcp"
                tasks.start_soon(_calling, url, orders[worker::8], outcomes, stop, history)
            for gateway in cluster.gateways:  # one at a time, as an orchestrator rolls a deployment
                flowing = len(outcomes) + 8
                await anyio.to_thread.run_sync(until, "calls flow", lambda n=flowing: len(outcomes) >= n)
                gateway.signal(signal.SIGTERM)
                # while it drains, its health check tells the balancer to stop sending to it
                draining.append(await anyio.to_thread.run_sync(_health_after_stop, gateway.base))
                await anyio.to_thread.run_sync(gateway.wait, 60)
                await anyio.to_thread.run_sync(cluster.restart, gateway)
            stop.set()
    finally:
        stop.set()
        for gateway in cluster.gateways:
            if not gateway.running:
                gateway.start()
        await anyio.to_thread.run_sync(cluster.all_in_rotation)
    lost = [outcome for outcome in outcomes if outcome != "ok"]
    assert not lost, lost[:5]
    assert draining == [503, 503, 503]
    sent = [cluster.requests_to(f"/shops/{order['shopId']}/orders") for order in orders]
    assert max(sent) == 1 and sum(sent) == len(outcomes)
    history.check()
