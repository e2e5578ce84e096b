"""Approval records (PRODUCT §5.1) on a real store of each backend, no MCP involved: how a record is
requested, answered once, claimed, finished and shown. How a call goes through one is the call
service's approval step (tests/service/test_approval.py)."""

from __future__ import annotations

from typing import Any

import pytest

from specbridge import ErrorCode
from specbridge._errors import ConfigError
from specbridge.approvals import ApprovalError, Approvals, approval_json
from specbridge.config import ApprovalsConfig, config_from_data
from specbridge.store import Approval, Status, Store
from tests.support.stores import namespaces, store, store_url

__all__ = ["namespaces", "store", "store_url"]

ARGS = {"orderId": "o-1", "amount": 25}
BOUND = {"body.currency": "EUR"}
RESULT = {"content": [{"type": "text", "text": "refunded"}], "isError": False}
CALL = "fingerprint-of-refund-o-1"  # the call service's fingerprint of this call


class Clock:
    def __init__(self) -> None:
        self.now = 1_764_500_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def approvals(store: Store, clock: Clock) -> Approvals:
    return Approvals(store, ApprovalsConfig(wait=0, expire=3600), clock=clock)


async def requested(approvals: Approvals, call: str = CALL) -> Approval:
    return await approvals.request("shop", "refundOrder", "agent-1", ARGS, BOUND, fingerprint=call)


async def pending_id(approvals: Approvals) -> str:
    return (await requested(approvals)).id


async def test_a_request_is_a_pending_record_with_an_unguessable_id_and_the_values_apart(
    approvals: Approvals,
) -> None:
    approval_id = await pending_id(approvals)
    stored = await approvals.get(approval_id)
    assert (stored.status, stored.arguments, stored.bound) == (Status.PENDING, ARGS, BOUND)
    assert (stored.api, stored.tool, stored.client) == ("shop", "refundOrder", "agent-1")
    assert len(approval_id) == 32  # unguessable: 16 random bytes
    assert approval_id[0] != "-"  # typed on a command line, an id must not read as an option


async def test_the_same_call_attaches_to_its_open_record_and_another_call_gets_its_own(
    approvals: Approvals,
) -> None:
    first = await pending_id(approvals)
    assert await pending_id(approvals) == first
    other = await requested(approvals, "fingerprint-of-another-call")
    assert other.id != first
    assert len(await approvals.list(Status.PENDING)) == 2


async def test_an_approval_is_answered_once_and_a_second_answer_is_refused(approvals: Approvals) -> None:
    approval_id = await pending_id(approvals)
    await approvals.approve(approval_id, by="alice")
    for second in (approvals.approve(approval_id, by="bob"), approvals.reject(approval_id, "bob", "no")):
        with pytest.raises(ApprovalError) as caught:
            await second
        assert caught.value.code is ErrorCode.APPROVAL_ANSWERED
        assert "approved by alice" in caught.value.message
    assert (await approvals.get(approval_id)).answered_by == "alice"


async def test_answering_an_expired_approval_is_refused_and_the_next_call_asks_again(
    approvals: Approvals, clock: Clock
) -> None:
    approval_id = await pending_id(approvals)
    clock.now += 3600
    assert await approvals.list(Status.PENDING) == []
    with pytest.raises(ApprovalError) as caught:
        await approvals.approve(approval_id, by="alice")
    assert caught.value.code is ErrorCode.APPROVAL_EXPIRED
    assert (await approvals.get(approval_id)).status is Status.EXPIRED
    told = await requested(approvals)
    assert (told.id, told.status) == (approval_id, Status.EXPIRED)  # the same call hears it expired
    await approvals.settle(told)  # once told, the next identical call asks again
    assert await pending_id(approvals) != approval_id


async def test_an_execution_whose_owner_vanished_is_claimed_by_nobody_and_after_its_lease_reads_outcome_unknown(
    store: Store, clock: Clock
) -> None:
    alive = Approvals(store, ApprovalsConfig(wait=0), clock=clock, lease=60)
    approval = await alive.approve((await requested(alive)).id, by="alice")
    # Another instance claimed it (`claim`) and then vanished without a word.
    vanished = Approvals(store, ApprovalsConfig(wait=0), clock=clock, lease=60, owner="vanished")
    assert await vanished.claim(approval) is not None
    assert await alive.claim(approval) is None  # sent by one only
    assert (await requested(alive)).status is Status.EXECUTING  # the same call attaches to it
    clock.now += 60
    assert (await alive.get(approval.id)).status is Status.OUTCOME_UNKNOWN
    assert await alive.claim(approval) is None


async def test_a_result_that_arrives_after_the_lease_passed_is_still_stored_and_settled(
    store: Store, clock: Clock
) -> None:
    slow = Approvals(store, ApprovalsConfig(wait=0), clock=clock, lease=60)
    approval = await slow.approve((await requested(slow)).id, "alice")
    claimed = await slow.claim(approval)
    assert claimed is not None
    clock.now += 61
    assert (await slow.get(approval.id)).status is Status.OUTCOME_UNKNOWN
    finished = await slow.finish(claimed, RESULT)
    assert finished is not None
    assert (finished.status, finished.result, finished.settled_at) == (Status.DONE, RESULT, clock.now)
    assert (await requested(slow)).id != approval.id  # handed out: the same call asks again


async def test_a_claimed_call_abandoned_is_outcome_unknown_and_never_claimed_again(
    approvals: Approvals,
) -> None:
    approval = await approvals.approve(await pending_id(approvals), by="alice")
    claimed = await approvals.claim(approval)
    assert claimed is not None
    await approvals.abandon(claimed)
    assert (await approvals.get(approval.id)).status is Status.OUTCOME_UNKNOWN
    assert await approvals.claim(approval) is None


async def test_an_unknown_id_is_not_found_and_a_rejection_needs_a_reason(approvals: Approvals) -> None:
    for attempt in (approvals.get("nope"), approvals.approve("nope", by="alice")):
        with pytest.raises(ApprovalError) as caught:
            await attempt
        assert caught.value.code is ErrorCode.APPROVAL_NOT_FOUND
    approval_id = await pending_id(approvals)
    with pytest.raises(ApprovalError) as caught:
        await approvals.reject(approval_id, by="bob", reason="   ")
    assert caught.value.code is ErrorCode.APPROVAL_REASON_MISSING
    assert (await approvals.get(approval_id)).status is Status.PENDING


async def test_a_person_sees_the_arguments_and_the_bound_values_apart_with_readable_times(
    approvals: Approvals,
) -> None:
    approval_id = await pending_id(approvals)
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
        "upstream_status": None,  # nothing was sent
        "result": None,
        "repeat_of": None,  # the first approval of this call
    }


async def test_with_announcements_each_new_approval_and_each_answer_is_queued_for_the_webhook(
    store: Store, clock: Clock
) -> None:
    approvals = Approvals(store, ApprovalsConfig(wait=0), clock=clock, announce=True)
    approval_id = await pending_id(approvals)
    await pending_id(approvals)  # attached: no second announcement
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


@pytest.mark.parametrize(
    ("field", "value", "says"),
    [("wait", -1.0, "0 or more"), ("expire", 0.0, "above 0"), ("by", "anyone", "operator or client")],
)
def test_settings_out_of_range_are_refused_by_the_config_saying_which(
    field: str, value: Any, says: str
) -> None:
    """`approvals:` has one model, the config's `ApprovalsConfig`, checked where the config is read."""
    with pytest.raises(ConfigError, match=f"approvals.{field}.*{says}"):
        config_from_data({"apis": {}, "approvals": {field: value}}, source="specbridge.yaml")
