"""The contract every store backend keeps, run against SQLite, PostgreSQL and Redis alike."""

from __future__ import annotations

import asyncio
import secrets
from dataclasses import replace

import pytest

from specbridge import ErrorCode
from specbridge.store import (
    Announcement,
    Approval,
    ClaimState,
    Condition,
    Status,
    Store,
    StoreError,
    open_store,
)

NOW = 1_764_500_000.25
MANY = 20


def approval(fingerprint: str = "fp-1", *, now: float = NOW, expire: float = 3600.0) -> Approval:
    return Approval(
        id=secrets.token_urlsafe(18),
        api="shop",
        tool="refundOrder",
        client="agent-1",
        arguments={"orderId": "o-1", "amount": 10**30, "lines": [{"sku": "é", "qty": 2}]},
        bound={"body.currency": "EUR"},
        fingerprint=fingerprint,
        status=Status.PENDING,
        created_at=now,
        expires_at=now + expire,
    )


ANSWERABLE = Condition(statuses=frozenset({Status.PENDING}), not_expired_at=NOW)


async def test_a_new_approval_is_stored_and_read_back_whole(store: Store) -> None:
    record = approval()
    stored, created = await store.attach_or_create(record, NOW)
    assert created
    assert stored == record
    assert await store.get_approval(record.id) == record
    assert await store.get_approval("no-such-id") is None


async def test_the_same_call_attaches_to_its_open_approval_instead_of_making_another(store: Store) -> None:
    first, _ = await store.attach_or_create(approval(), NOW)
    again, created = await store.attach_or_create(approval(), NOW + 1)
    assert (again.id, created) == (first.id, False)
    other, created = await store.attach_or_create(approval("fp-2"), NOW)
    assert created and other.id != first.id


async def test_many_concurrent_requests_for_one_call_make_exactly_one_approval(store_url: str) -> None:
    async with open_store(store_url) as one, open_store(store_url) as two:
        results = await asyncio.gather(
            *(((one, two)[n % 2]).attach_or_create(approval(), NOW) for n in range(MANY))
        )
        assert len({record.id for record, _ in results}) == 1
        assert sum(created for _, created in results) == 1
        assert len(await one.list_approvals()) == 1


async def test_a_settled_approval_is_not_attached_to_and_the_call_makes_a_new_one(store: Store) -> None:
    first, _ = await store.attach_or_create(approval(), NOW)
    settled = await store.update_approval(
        first.id, Condition(statuses=frozenset(Status), unsettled=True), {"settled_at": NOW + 1}
    )
    assert settled is not None and settled.settled_at == NOW + 1
    second, created = await store.attach_or_create(approval(), NOW + 2)
    assert created and second.id != first.id


async def test_a_pending_approval_past_its_expiry_is_expired_on_the_next_request_and_open_until_settled(
    store: Store,
) -> None:
    first, _ = await store.attach_or_create(approval(expire=10), NOW)
    expired, created = await store.attach_or_create(approval(expire=10), NOW + 10)
    assert not created and (expired.id, expired.status, expired.settled_at) == (
        first.id,
        Status.EXPIRED,
        None,
    )
    assert [record.id for record in await store.list_approvals(Status.EXPIRED)] == [first.id]
    # The caller told its agent it expired (settled): the next request is a new approval.
    await store.update_approval(
        first.id, Condition(frozenset({Status.EXPIRED}), unsettled=True), {"settled_at": NOW + 11}
    )
    second, created = await store.attach_or_create(approval(expire=10), NOW + 12)
    assert created and second.id != first.id and second.status is Status.PENDING


async def test_of_many_concurrent_answers_from_two_connections_exactly_one_wins(store_url: str) -> None:
    async with open_store(store_url) as one, open_store(store_url) as two:
        record, _ = await one.attach_or_create(approval(), NOW)

        async def answer(n: int) -> Approval | None:
            status = Status.APPROVED if n % 3 else Status.REJECTED
            changes = {"status": status, "answered_by": f"person-{n}", "answered_at": NOW + 1}
            return await (one, two)[n % 2].update_approval(record.id, ANSWERABLE, changes)

        results = await asyncio.gather(*(answer(n) for n in range(MANY)))
        winners = [result for result in results if result is not None]
        assert len(winners) == 1
        assert await two.get_approval(record.id) == winners[0]


async def test_an_update_applies_only_when_every_part_of_its_condition_holds(store: Store) -> None:
    record, _ = await store.attach_or_create(approval(expire=10), NOW)
    assert await store.update_approval(record.id, replace(ANSWERABLE, not_expired_at=NOW + 10), {}) is None
    assert await store.update_approval("no-such-id", ANSWERABLE, {"status": Status.APPROVED}) is None
    approved = await store.update_approval(record.id, ANSWERABLE, {"status": Status.APPROVED, "reason": "ok"})
    assert approved is not None and (approved.status, approved.reason) == (Status.APPROVED, "ok")
    claim = Condition(statuses=frozenset({Status.APPROVED}))
    executing = await store.update_approval(
        record.id, claim, {"status": Status.EXECUTING, "owner": "w-1", "lease_until": NOW + 60}
    )
    assert executing is not None and executing.owner == "w-1"
    mine = Condition(statuses=frozenset({Status.EXECUTING}), owner="w-2")
    assert await store.update_approval(record.id, mine, {"status": Status.DONE}) is None
    stale = Condition(statuses=frozenset({Status.EXECUTING}), lease_passed_at=NOW + 59)
    assert await store.update_approval(record.id, stale, {"status": Status.OUTCOME_UNKNOWN}) is None
    result = {"content": [{"type": "text", "text": "refunded"}], "isError": False}
    done = await store.update_approval(
        record.id, replace(mine, owner="w-1"), {"status": Status.DONE, "result": result, "reason": None}
    )
    assert done is not None and (done.status, done.result, done.reason) == (Status.DONE, result, None)
    assert await store.list_approvals(Status.EXECUTING) == []
    assert [found.id for found in await store.list_approvals(Status.DONE)] == [record.id]


async def test_a_field_written_at_creation_cannot_be_changed(store: Store) -> None:
    record, _ = await store.attach_or_create(approval(), NOW)
    with pytest.raises(ValueError, match="arguments"):
        await store.update_approval(record.id, ANSWERABLE, {"arguments": {}})


async def test_expiry_marks_only_pending_approvals_whose_time_has_passed(store: Store) -> None:
    short, _ = await store.attach_or_create(approval("a", expire=10), NOW)
    long, _ = await store.attach_or_create(approval("b", expire=100), NOW)
    answered, _ = await store.attach_or_create(approval("c", expire=10), NOW)
    await store.update_approval(answered.id, ANSWERABLE, {"status": Status.APPROVED})
    assert await store.expire_due(NOW + 10) == 1
    assert [record.id for record in await store.list_approvals(Status.PENDING)] == [long.id]
    assert [record.id for record in await store.list_approvals(Status.EXPIRED)] == [short.id]
    again, created = await store.attach_or_create(approval("a"), NOW + 11)
    assert not created and (again.id, again.status) == (short.id, Status.EXPIRED)  # open until told once


async def test_approvals_are_listed_newest_first_and_up_to_the_limit(store: Store) -> None:
    made = [(await store.attach_or_create(approval(f"fp-{n}", now=NOW + n), NOW + n))[0] for n in range(5)]
    assert [record.id for record in await store.list_approvals(limit=3)] == [r.id for r in made[::-1][:3]]
    assert len(await store.list_approvals(Status.PENDING)) == 5
    assert await store.list_approvals(Status.REJECTED) == []


async def test_of_many_concurrent_claims_from_two_connections_exactly_one_wins(store_url: str) -> None:
    async with open_store(store_url) as one, open_store(store_url) as two:
        claims = await asyncio.gather(
            *((one, two)[n % 2].claim("call-1", f"owner-{n}", "args-1", 30, 3600, NOW) for n in range(MANY))
        )
    winners = [claim for claim in claims if claim.won]
    assert len(winners) == 1
    assert {(claim.owner, claim.state) for claim in claims} == {(winners[0].owner, ClaimState.HELD)}


async def test_a_completed_claim_gives_its_result_to_everyone_after(store: Store) -> None:
    mine = await store.claim("call-1", "me", "args-1", 30, 3600, NOW)
    assert mine.won and mine.fingerprint == "args-1"
    assert not await store.complete("call-1", "someone-else", {"x": 1}, NOW + 1)
    assert await store.complete("call-1", "me", {"status": 201, "big": 10**20}, NOW + 1)
    assert not await store.complete("call-1", "me", {"again": True}, NOW + 2)
    later = await store.claim("call-1", "other", "args-1", 30, 3600, NOW + 2)
    assert (later.won, later.state, later.result) == (False, ClaimState.DONE, {"status": 201, "big": 10**20})
    assert await store.get_claim("call-1", NOW + 2) == replace(later, won=False)


async def test_a_claim_whose_lease_passed_without_a_result_reads_unknown_and_is_never_run_again(
    store: Store,
) -> None:
    await store.claim("call-1", "dead", "args-1", 30, 3600, NOW)
    found = await store.get_claim("call-1", NOW + 30)
    assert found is not None and found.state is ClaimState.UNKNOWN
    again = await store.claim("call-1", "new", "args-1", 30, 3600, NOW + 31)
    assert (again.won, again.owner, again.state) == (False, "dead", ClaimState.UNKNOWN)


async def test_a_claim_is_forgotten_after_its_keep_time_and_can_be_taken_again(store: Store) -> None:
    await store.claim("call-1", "first", "args-1", 30, 100, NOW)
    assert await store.get_claim("call-1", NOW + 100) is None
    again = await store.claim("call-1", "second", "args-2", 30, 100, NOW + 100)
    assert (again.won, again.owner, again.fingerprint) == (True, "second", "args-2")


async def test_a_sweep_forgets_claims_past_their_keep_time_and_keeps_the_others(store: Store) -> None:
    await store.claim("old", "me", "a", 30, 100, NOW)
    await store.claim("fresh", "me", "a", 30, 1000, NOW)
    await store.sweep(NOW + 100)
    assert await store.get_claim("old", NOW + 100) is None
    fresh = await store.get_claim("fresh", NOW + 100)
    assert fresh is not None and fresh.owner == "me"


async def test_an_abandoned_claim_is_forgotten_if_nothing_was_sent_and_unknown_if_something_may_have_been(
    store: Store,
) -> None:
    await store.claim("not-sent", "me", "a", 30, 3600, NOW)
    assert not await store.abandon("not-sent", "other", sent=False)
    assert await store.abandon("not-sent", "me", sent=False)
    assert await store.get_claim("not-sent", NOW) is None
    await store.claim("maybe-sent", "me", "a", 30, 3600, NOW)
    assert await store.abandon("maybe-sent", "me", sent=True)
    found = await store.get_claim("maybe-sent", NOW)
    assert found is not None and found.state is ClaimState.UNKNOWN
    assert not (await store.claim("maybe-sent", "next", "a", 30, 3600, NOW + 1)).won


async def test_the_outbox_hands_out_due_deliveries_oldest_first_and_hides_leased_ones(store: Store) -> None:
    first = await store.enqueue("approval.requested", {"n": 1}, NOW)
    second = await store.enqueue("approval.answered", {"n": 2}, NOW + 1)
    later = await store.enqueue("approval.answered", {"n": 3}, NOW + 2, due=NOW + 100)
    leased = await store.lease_due(NOW + 5, lease=30)
    assert [(d.id, d.topic, d.payload, d.attempts) for d in leased] == [
        (first, "approval.requested", {"n": 1}, 1),
        (second, "approval.answered", {"n": 2}, 1),
    ]
    assert await store.lease_due(NOW + 6, lease=30) == []
    await store.ack(first)
    await store.retry_at(second, NOW + 50, "receiver answered 503")
    assert await store.lease_due(NOW + 49, lease=30) == []
    retried = await store.lease_due(NOW + 100, lease=30)
    assert [(d.id, d.attempts, d.last_error) for d in retried] == [
        (second, 2, "receiver answered 503"),
        (later, 1, None),
    ]


async def test_a_retry_of_a_delivery_acked_meanwhile_does_not_bring_it_back(store: Store) -> None:
    delivery = await store.enqueue("t", {"n": 1}, NOW)
    await store.lease_due(NOW, lease=30)
    await store.ack(delivery)
    await store.retry_at(delivery, NOW + 1, "late failure report")
    assert await store.lease_due(NOW + 100, lease=30) == []


async def test_an_announcement_is_queued_with_the_change_it_announces_and_only_then(store: Store) -> None:
    created, _ = await store.attach_or_create(
        approval(), NOW, Announcement("approval.requested", {"n": 1}, NOW)
    )
    await store.attach_or_create(approval(), NOW, Announcement("approval.requested", {"n": 2}, NOW))
    answered = Announcement("approval.answered", {"n": 3}, NOW + 1)
    assert await store.update_approval(created.id, ANSWERABLE, {"status": Status.APPROVED}, answered)
    assert await store.update_approval(created.id, ANSWERABLE, {"status": Status.REJECTED}, answered) is None
    queued = await store.lease_due(NOW + 1, lease=30)
    assert [(d.topic, d.payload, d.created_at) for d in queued] == [
        ("approval.requested", {"n": 1}, NOW),
        ("approval.answered", {"n": 3}, NOW + 1),
    ]


async def test_two_workers_leasing_at_once_never_get_the_same_delivery(store_url: str) -> None:
    async with open_store(store_url) as one, open_store(store_url) as two:
        made = {await one.enqueue("t", {"n": n}, NOW + n) for n in range(MANY)}
        batches = await asyncio.gather(
            *((one, two)[n % 2].lease_due(NOW + MANY, 30, limit=3) for n in range(10))
        )
    handed = [delivery.id for batch in batches for delivery in batch]
    assert len(handed) == len(set(handed)) == MANY
    assert set(handed) == made


async def test_several_instances_starting_together_on_a_new_store_all_open_it(store_url: str) -> None:
    stores = [open_store(store_url) for _ in range(4)]
    await asyncio.gather(*(store.start() for store in stores))
    try:
        records = await asyncio.gather(*(store.attach_or_create(approval(), NOW) for store in stores))
        assert len({record.id for record, _ in records}) == 1
    finally:
        await asyncio.gather(*(store.close() for store in stores))


async def test_a_store_used_before_it_is_started_or_after_it_is_closed_says_so(store_url: str) -> None:
    store = open_store(store_url)
    with pytest.raises(StoreError, match="not started") as caught:
        await store.get_approval("x")
    assert caught.value.code is ErrorCode.STORE_UNAVAILABLE
    async with store:
        assert await store.get_approval("x") is None
    with pytest.raises(StoreError, match="not started"):
        await store.claim("k", "me", "a", 30, 60, NOW)
