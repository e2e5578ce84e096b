"""The ledger's look-up (service/_look_up.py): what one logical call is now. A sent approval answers its
identical call within `approvals.repeat_window` (saying it was already sent, when and under which
approval) however its outcome was read first; after the window the identical call is a new approval
that names the one before it. A key outlives how its call was settled."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from specbridge import ErrorCode
from specbridge.store import Condition, Status
from tests.service._harness import ORDER, Harness, harness
from tests.support.upstream import Upstream, json_response

TOOLS = {"createOrder": {"requires_approval": True}}


@pytest.fixture(autouse=True)
def upstream_routes(upstream: Upstream) -> None:
    upstream.route("/shops/s1/orders", json_response({"id": "o1"}, status=201))


async def sent_once(service: Harness, arguments: dict[str, object]) -> str:
    """The call asks a person, who approves; the agent's next call sends it."""
    await service.result("createOrder", arguments)
    desk = service.ledger.current().desk
    (pending,) = await desk.list(Status.PENDING)
    await desk.approve(pending.id, "alice")
    sent = await service.result("createOrder", arguments)
    assert sent.structured == {"id": "o1"}, sent.text
    return pending.id


async def test_within_the_window_the_same_call_gets_the_outcome_saying_it_was_already_sent(
    tmp_path: Path, upstream: Upstream, store_url: str
) -> None:
    async with harness(tmp_path, upstream, store_url, tools=TOOLS, approvals={"wait": 0}) as service:
        first = await sent_once(service, ORDER)
        again = [await service.result("createOrder", ORDER) for _ in range(2)]
        other = await service.result("createOrder", {**ORDER, "quantity": 3})  # another call
    for result in again:
        assert result.structured == {"id": "o1"} and result.status == 201
        assert "already sent" in result.text and first in result.text and "not sent again" in result.text
    assert other.code is ErrorCode.APPROVAL_PENDING
    assert len(upstream.requests) == 1


async def test_after_the_window_the_same_call_is_a_new_approval_that_names_the_one_before(
    tmp_path: Path, upstream: Upstream, store_url: str
) -> None:
    approvals = {"wait": 0, "repeat_window": "15m"}
    async with harness(tmp_path, upstream, store_url, tools=TOOLS, approvals=approvals) as service:
        first = await sent_once(service, ORDER)
        opened = await service.ledger.open()
        done = Condition(statuses=frozenset({Status.DONE}))
        await opened.update_approval(first, done, {"finished_at": time.time() - 7200})  # sent 2 h ago
        repeat = await service.result("createOrder", ORDER)
        desk = service.ledger.current().desk
        (pending,) = await desk.list(Status.PENDING)
        note = await service.ledger.desk.repeat(pending)
    assert repeat.code is ErrorCode.APPROVAL_PENDING and first not in repeat.text
    assert pending.repeat_of == first
    assert note == f"same call as {first}, done (HTTP 201) 2 h ago"
    assert len(upstream.requests) == 1


async def test_a_key_given_with_an_approval_returns_its_outcome_after_the_window_too(
    tmp_path: Path, upstream: Upstream, store_url: str
) -> None:
    keyed = {**ORDER, "idempotency_key": "refund-1"}
    async with harness(tmp_path, upstream, store_url, tools=TOOLS, approvals={"wait": 0}) as service:
        first = await sent_once(service, keyed)
        opened = await service.ledger.open()
        done = Condition(statuses=frozenset({Status.DONE}))
        await opened.update_approval(first, done, {"finished_at": time.time() - 7200})
        again = await service.result("createOrder", keyed)  # the key's stored result, for its ttl
        pending = await service.ledger.current().desk.list(Status.PENDING)
    assert again.structured == {"id": "o1"}
    assert pending == []
    assert len(upstream.requests) == 1
