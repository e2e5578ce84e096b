"""Human approval of risky calls (PRODUCT §5.1), on a real store of each backend; no MCP involved."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import pytest

from specbridge import ErrorCode
from specbridge.approvals import ApprovalError, Approvals, ApprovalSettings, approval_json
from specbridge.store import Condition, Status, Store, open_store
from tests.store._backends import namespaces, store, store_url

__all__ = ["namespaces", "store", "store_url"]

ARGS = {"orderId": "o-1", "amount": 25}
BOUND = {"body.currency": "EUR"}
RESULT = {"content": [{"type": "text", "text": "refunded"}], "isError": False}


class Clock:
    def __init__(self) -> None:
        self.now = 1_764_500_000.0

    def __call__(self) -> float:
        return self.now


class Upstream:
    """Counts what would have reached the API."""

    def __init__(self, result: Any = RESULT) -> None:
        self.sent = 0
        self.result = result

    async def send(self) -> Any:
        self.sent += 1
        await anyio.lowlevel.checkpoint()  # let concurrent callers interleave mid-call
        return self.result


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def approvals(store: Store, clock: Clock) -> Approvals:
    return Approvals(store, ApprovalSettings(wait=0, expire=3600), clock=clock)


def calling(approvals: Approvals, send: Callable[[], Awaitable[Any]], **kwargs: Any) -> Awaitable[Any]:
    return approvals.call("shop", "refundOrder", "agent-1", ARGS, BOUND, send, **kwargs)


async def pending_id(approvals: Approvals, upstream: Upstream) -> str:
    with pytest.raises(ApprovalError) as caught:
        await calling(approvals, upstream.send)
    assert caught.value.code is ErrorCode.APPROVAL_PENDING
    assert caught.value.approval is not None
    return caught.value.approval.id


class Arrivals:
    """Counts calls that started waiting for their answer (and so are attached to the approval)."""

    def __init__(self, expected: int) -> None:
        self.expected = expected
        self.count = 0
        self.all_waiting = asyncio.Event()


class Watched(Approvals):
    arrivals: Arrivals

    async def wait(self, approval_id: str, timeout: float) -> Any:
        self.arrivals.count += 1
        if self.arrivals.count >= self.arrivals.expected:
            self.arrivals.all_waiting.set()
        return await super().wait(approval_id, timeout)


def watched(store: Store, clock: Clock, arrivals: Arrivals, wait: float = 30) -> Watched:
    approvals = Watched(store, ApprovalSettings(wait=wait), clock=clock)
    approvals.arrivals = arrivals
    return approvals


async def test_a_call_waits_for_a_person_and_gets_the_real_result_once_approved(
    store: Store, clock: Clock
) -> None:
    approvals = watched(store, clock, arrivals := Arrivals(1))
    upstream = Upstream()
    with anyio.fail_after(10):
        waiting = asyncio.create_task(calling(approvals, upstream.send))
        await arrivals.all_waiting.wait()
        [found] = await approvals.list(Status.PENDING)
        assert upstream.sent == 0
        await approvals.approve(found.id, by="alice")
        assert await waiting == RESULT
    assert upstream.sent == 1
    done = await approvals.get(found.id)
    assert (done.status, done.answered_by, done.result) == (Status.DONE, "alice", RESULT)


async def test_a_call_not_answered_in_time_says_it_awaits_a_person_with_the_id_and_sends_nothing(
    approvals: Approvals,
) -> None:
    upstream = Upstream()
    approval_id = await pending_id(approvals, upstream)
    assert upstream.sent == 0
    stored = await approvals.get(approval_id)
    assert (stored.status, stored.arguments, stored.bound) == (Status.PENDING, ARGS, BOUND)
    assert (stored.api, stored.tool, stored.client) == ("shop", "refundOrder", "agent-1")
    assert len(approval_id) == 32  # unguessable: 16 random bytes
    assert approval_id[0] != "-"  # typed on a command line, an id must not read as an option


async def test_the_same_call_again_attaches_to_its_approval_and_never_makes_a_duplicate(
    approvals: Approvals,
) -> None:
    upstream = Upstream()
    first = await pending_id(approvals, upstream)
    assert await pending_id(approvals, upstream) == first
    other_client = await approvals.request("shop", "refundOrder", "agent-2", ARGS, BOUND)
    other_binding = await approvals.request("shop", "refundOrder", "agent-1", ARGS, {"body.currency": "USD"})
    assert len({first, other_client.id, other_binding.id}) == 3
    assert len(await approvals.list(Status.PENDING)) == 3


async def test_approved_later_the_next_identical_call_gets_the_result_once_and_then_asks_again(
    approvals: Approvals,
) -> None:
    upstream = Upstream()
    approval_id = await pending_id(approvals, upstream)
    await approvals.approve(approval_id, by="alice")
    assert await calling(approvals, upstream.send) == RESULT
    assert upstream.sent == 1
    assert await pending_id(approvals, upstream) != approval_id
    assert upstream.sent == 1


async def test_a_rejection_gives_its_reason_once_and_a_redraft_is_a_new_approval(
    approvals: Approvals,
) -> None:
    upstream = Upstream()
    approval_id = await pending_id(approvals, upstream)
    await approvals.reject(approval_id, by="bob", reason="  refunds over 20 need a ticket number  ")
    with pytest.raises(ApprovalError) as caught:
        await calling(approvals, upstream.send)
    assert caught.value.code is ErrorCode.APPROVAL_REJECTED
    assert "refunds over 20 need a ticket number" in caught.value.message
    assert approval_id in caught.value.message
    assert await pending_id(approvals, upstream) != approval_id
    assert upstream.sent == 0


async def test_an_approval_is_answered_once_and_a_second_answer_is_refused(approvals: Approvals) -> None:
    approval_id = await pending_id(approvals, Upstream())
    await approvals.approve(approval_id, by="alice")
    for second in (approvals.approve(approval_id, by="bob"), approvals.reject(approval_id, "bob", "no")):
        with pytest.raises(ApprovalError) as caught:
            await second
        assert caught.value.code is ErrorCode.APPROVAL_ANSWERED
        assert "approved by alice" in caught.value.message
    assert (await approvals.get(approval_id)).answered_by == "alice"


async def test_two_instances_approving_at_the_same_moment_give_one_answer_and_one_upstream_request(
    store_url: str, clock: Clock
) -> None:
    upstream = Upstream()
    async with open_store(store_url) as one, open_store(store_url) as two:
        arrivals = Arrivals(10)
        instances = [watched(store, clock, arrivals) for store in (one, two)]
        calls = [asyncio.create_task(calling(instances[n % 2], upstream.send)) for n in range(10)]
        with anyio.fail_after(10):
            await arrivals.all_waiting.wait()
        [pending] = await instances[1].list(Status.PENDING)
        approval_id = pending.id

        async def answer(n: int) -> str:
            try:
                await instances[n % 2].approve(approval_id, by=f"person-{n}")
            except ApprovalError as error:
                return error.code
            return "won"

        outcomes = await asyncio.gather(*(answer(n) for n in range(10)))
        assert sorted(outcomes) == [ErrorCode.APPROVAL_ANSWERED] * 9 + ["won"]
        with anyio.fail_after(10):
            results = await asyncio.gather(*calls)
    assert results == [RESULT] * 10
    assert upstream.sent == 1


async def test_answering_an_expired_approval_is_refused_and_the_next_call_asks_again(
    approvals: Approvals, clock: Clock
) -> None:
    upstream = Upstream()
    approval_id = await pending_id(approvals, upstream)
    clock.now += 3600
    assert await approvals.list(Status.PENDING) == []
    with pytest.raises(ApprovalError) as caught:
        await approvals.approve(approval_id, by="alice")
    assert caught.value.code is ErrorCode.APPROVAL_EXPIRED
    assert (await approvals.get(approval_id)).status is Status.EXPIRED
    assert await pending_id(approvals, upstream) != approval_id
    assert upstream.sent == 0


async def test_a_call_whose_sending_failed_midway_is_outcome_unknown_and_never_sent_again(
    approvals: Approvals,
) -> None:
    sent = 0

    async def breaks() -> Any:
        nonlocal sent
        sent += 1
        raise ConnectionResetError("the process lost the connection mid-call")

    approval_id = await pending_id(approvals, Upstream())
    await approvals.approve(approval_id, by="alice")
    with pytest.raises(ConnectionResetError):
        await calling(approvals, breaks)
    with pytest.raises(ApprovalError) as caught:
        await calling(approvals, breaks)
    assert caught.value.code is ErrorCode.APPROVAL_OUTCOME_UNKNOWN
    assert sent == 1
    assert (await approvals.get(approval_id)).status is Status.OUTCOME_UNKNOWN


async def test_an_execution_whose_owner_vanished_is_not_resent_and_after_its_lease_reads_outcome_unknown(
    store: Store, clock: Clock
) -> None:
    alive = Approvals(store, ApprovalSettings(wait=0), clock=clock, lease=60)
    approval = await alive.request("shop", "refundOrder", "agent-1", ARGS, BOUND)
    await alive.approve(approval.id, by="alice")
    # Another instance claimed it (as `execute` does) and then vanished without a word.
    claimed = await store.update_approval(
        approval.id,
        Condition(statuses=frozenset({Status.APPROVED})),
        {"status": Status.EXECUTING, "owner": "vanished", "lease_until": clock.now + 60},
    )
    assert claimed is not None
    upstream = Upstream()
    with pytest.raises(ApprovalError) as caught:
        await calling(alive, upstream.send)
    assert caught.value.code is ErrorCode.APPROVAL_PENDING
    assert "being sent" in caught.value.message
    clock.now += 60
    with pytest.raises(ApprovalError) as caught:
        await calling(alive, upstream.send)
    assert caught.value.code is ErrorCode.APPROVAL_OUTCOME_UNKNOWN
    assert upstream.sent == 0


async def test_a_result_that_arrives_after_the_lease_passed_is_still_stored(
    store: Store, clock: Clock
) -> None:
    slow = Approvals(store, ApprovalSettings(wait=0), clock=clock, lease=60)
    approval = await slow.approve(
        (await slow.request("shop", "refundOrder", "agent-1", ARGS, BOUND)).id, "alice"
    )

    async def outlives_its_lease() -> Any:
        clock.now += 61
        assert (await slow.get(approval.id)).status is Status.OUTCOME_UNKNOWN
        return RESULT

    finished = await slow.execute(approval, outlives_its_lease)
    assert (finished.status, finished.result) == (Status.DONE, RESULT)


async def test_an_unknown_id_is_not_found_and_a_rejection_needs_a_reason(approvals: Approvals) -> None:
    for attempt in (approvals.get("nope"), approvals.approve("nope", by="alice")):
        with pytest.raises(ApprovalError) as caught:
            await attempt
        assert caught.value.code is ErrorCode.APPROVAL_NOT_FOUND
    approval_id = await pending_id(approvals, Upstream())
    with pytest.raises(ApprovalError) as caught:
        await approvals.reject(approval_id, by="bob", reason="   ")
    assert caught.value.code is ErrorCode.APPROVAL_REASON_MISSING
    assert (await approvals.get(approval_id)).status is Status.PENDING


async def test_a_person_sees_the_arguments_and_the_bound_values_apart_with_readable_times(
    approvals: Approvals,
) -> None:
    approval_id = await pending_id(approvals, Upstream())
    await approvals.reject(approval_id, by="bob", reason="wrong order")
    shown = approval_json(await approvals.get(approval_id))
    assert shown == {
        "id": approval_id,
        "status": "rejected",
        "api": "shop",
        "tool": "refundOrder",
        "client": "agent-1",
        "arguments": ARGS,
        "bound": BOUND,
        "reason": "wrong order",
        "answered_by": "bob",
        "created_at": "2025-11-30T10:53:20Z",
        "expires_at": "2025-11-30T11:53:20Z",
        "answered_at": "2025-11-30T10:53:20Z",
        "finished_at": None,
        "result": None,
    }


async def test_with_announcements_each_new_approval_and_each_answer_is_queued_for_the_webhook(
    store: Store, clock: Clock
) -> None:
    approvals = Approvals(store, ApprovalSettings(wait=0), clock=clock, announce=True)
    approval_id = await pending_id(approvals, Upstream())
    await pending_id(approvals, Upstream())  # attached: no second announcement
    clock.now += 5
    await approvals.approve(approval_id, by="alice")
    with pytest.raises(ApprovalError):
        await approvals.approve(approval_id, by="bob")
    (requested,) = await store.lease_due(clock.now, lease=30)  # one stream: the answer waits its turn
    await store.ack(requested.id)
    (answer,) = await store.lease_due(clock.now, lease=30)
    assert [(d.topic, d.payload["type"], d.payload["data"]["status"]) for d in (requested, answer)] == [
        ("approval.requested", "approval.requested", "pending"),
        ("approval.answered", "approval.answered", "approved"),
    ]
    answered = answer.payload
    assert answered["timestamp"] == answered["data"]["answered_at"] == "2025-11-30T10:53:25Z"
    assert (answered["data"]["answered_by"], answered["data"]["arguments"]) == ("alice", ARGS)


@pytest.mark.parametrize(("field", "value"), [("wait", -1.0), ("expire", 0.0), ("by", "anyone")])
def test_settings_out_of_range_are_refused_saying_which(field: str, value: Any) -> None:
    with pytest.raises(ValueError, match=f"approvals.{field}"):
        ApprovalSettings(**{field: value})
