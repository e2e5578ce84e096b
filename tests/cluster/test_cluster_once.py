"""What must happen once, with three instances behind round-robin on one store (PostgreSQL, Redis):
one idempotency key sent by 20 concurrent calls spread over the instances, an approval answered on one
instance and taken on another."""

from __future__ import annotations

import re
import secrets

import anyio
import pytest

from tests.cluster._cluster import Cluster, admin, agent, code, load, text
from tests.cluster._history import History

pytestmark = pytest.mark.cluster


async def test_twenty_concurrent_calls_with_one_key_over_three_instances_send_one_request(
    cluster: Cluster,
) -> None:
    shop = "k" + secrets.token_hex(4)
    order = {"shopId": shop, "product": "p1", "quantity": 1, "idempotency_key": "order-" + shop}
    before = cluster.calls_served()
    results = await load(cluster.base + "/shop/mcp", [("createOrder", order)] * 20)
    assert cluster.requests_to(f"/shops/{shop}/orders") == 1
    after = cluster.calls_served()
    assert all(now > then for now, then in zip(after, before, strict=True)), (
        before,
        after,
    )  # all three took calls
    codes = {code(result) for result in results}
    # each call has the one request's result, or is told it is still being sent by another call
    assert codes <= {None, "idempotency-in-progress"}, [text(result) for result in results]
    assert None in codes


async def test_an_approval_answered_on_one_instance_is_taken_on_another_and_sent_once(
    cluster: Cluster,
) -> None:
    one, two, three = cluster.gateways
    order = "o" + secrets.token_hex(4)
    async with agent(one.base + "/shop/mcp") as client:
        pending = await client.call_tool("refundOrder", {"orderId": order})
    assert code(pending) == "approval-pending", text(pending)
    found = re.search(r"approval ([A-Za-z0-9_-]{20,})", text(pending))
    assert found is not None, text(pending)
    approval = found.group(1)
    answered = await admin(two.base, "POST", f"/admin/approvals/{approval}/approve")
    assert answered.status_code == 200, answered.text
    with anyio.fail_after(30):
        async with agent(three.base + "/shop/mcp") as client:
            while True:  # taken by this call, or being sent by an instance's sender: its result, once there
                taken = await client.call_tool("refundOrder", {"orderId": order})
                if code(taken) != "approval-pending":
                    break
                await anyio.sleep(0.1)
    assert code(taken) is None, text(taken)
    # the same call again, from eight clients through the balancer: never a second send, never a new
    # question for a person: the stored outcome, whichever instance each call reached
    history = History(cluster.upstream)
    again = await history.load(cluster.base + "/shop/mcp", [("refundOrder", {"orderId": order})] * 8)
    assert cluster.requests_to(f"/refunds/{order}") == 1
    # within approvals.repeat_window every repeat gets the outcome, saying it was already sent
    assert {code(result) for result in again} == {None}, [text(r) for r in again]
    assert all("already sent" in text(result) and approval in text(result) for result in again)
    history.check()
