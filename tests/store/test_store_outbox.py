"""The outbox's fan-out and ordering, on every backend: one step writes every receiver's row with the
change it announces (or none of them), `complete` stores a result and its `call.completed` together,
a stream's deliveries are handed out one at a time, oldest first, and a delivery written before
receivers and streams existed is still handed out after the upgrade."""

from __future__ import annotations

import asyncio
import sqlite3
from contextlib import closing

import psycopg
import pytest
import redis

from specbridge.store import Announcement, Approval, ClaimState, Condition, Status, Store, _sql, open_store

NOW = 1_764_500_000.0
PENDING = Condition(statuses=frozenset({Status.PENDING}))


def approval(approval_id: str = "a-1") -> Approval:
    return Approval(
        id=approval_id,
        api="shop",
        tool="refundOrder",
        client="bot",
        arguments={"orderId": "o-1"},
        bound={},
        fingerprint="fp-1",  # one call: a second record of it attaches
        status=Status.PENDING,
        created_at=NOW,
        expires_at=NOW + 3600,
    )


def to_both(topic: str, at: float, call: str = "a-1") -> list[Announcement]:
    """One event for the operators and for the client `bot`, each in its own stream of the call."""
    return [
        Announcement(topic, {"for": receiver}, at, receiver, f"{receiver}|approval:{call}")
        for receiver in ("approvals", "client:bot")
    ]


async def everything(store: Store, now: float) -> list[tuple[str, str | None]]:
    """(topic, receiver) of every delivery, leasing and acknowledging until the outbox is empty."""
    seen = []
    while leased := await store.lease_due(now, lease=30):
        for delivery in leased:
            seen.append((delivery.topic, delivery.receiver))
            await store.ack(delivery.id)
    return seen


async def test_a_new_approval_and_its_answer_write_one_row_per_receiver_in_their_step(store: Store) -> None:
    await store.attach_or_create(approval(), NOW, to_both("approval.requested", NOW))
    _, created = await store.attach_or_create(approval("a-2"), NOW, to_both("approval.requested", NOW))
    assert not created  # the same call attaches: nothing announced again
    changes = {"status": Status.APPROVED, "answered_by": "alice", "answered_at": NOW + 1}
    assert await store.update_approval("a-1", PENDING, changes, to_both("approval.answered", NOW + 1))
    assert await store.update_approval("a-1", PENDING, changes, to_both("approval.answered", NOW + 2)) is None

    delivered = await everything(store, NOW + 5)
    assert sorted(delivered) == sorted(
        (topic, receiver)
        for topic in ("approval.requested", "approval.answered")
        for receiver in ("approvals", "client:bot")
    )


async def test_a_stream_hands_out_its_oldest_delivery_alone_and_the_next_only_after_its_ack(
    store: Store,
) -> None:
    stream = "client:bot|call:c-1"
    first = await store.enqueue("approval.requested", {}, NOW, receiver="client:bot", stream=stream)
    second = await store.enqueue("approval.answered", {}, NOW + 1, receiver="client:bot", stream=stream)
    other = await store.enqueue(
        "call.completed", {}, NOW + 2, receiver="client:bot", stream="client:bot|call:c-2"
    )
    unordered = await store.enqueue("approval.requested", {}, NOW + 3)

    leased = await store.lease_due(NOW + 10, lease=30)
    assert [delivery.id for delivery in leased] == [first, other, unordered]
    assert leased[0].stream == "client:bot|call:c-1" and leased[0].receiver == "client:bot"
    assert leased[2].stream is None and leased[2].receiver is None

    await store.retry_at(first, NOW + 20, "the receiver answered HTTP 500")
    assert (
        await store.lease_due(NOW + 15, lease=30) == []
    )  # the first waits to be retried: so does the second
    (again,) = await store.lease_due(NOW + 20, lease=30)
    assert again.id == first and again.attempts == 2
    await store.ack(first)
    (then,) = await store.lease_due(NOW + 21, lease=30)
    assert then.id == second


async def test_two_workers_leasing_at_once_never_hold_two_deliveries_of_one_stream(
    store_url: str, store: Store
) -> None:
    for n in range(6):
        await store.enqueue("e", {"n": n}, NOW + n, stream=f"s{n % 2}")
    async with open_store(store_url) as other:
        batches = await asyncio.gather(
            *((store, other)[n % 2].lease_due(NOW + 10, lease=30, limit=6) for n in range(6))
        )
    leased = [delivery for batch in batches for delivery in batch]
    assert sorted(delivery.payload["n"] for delivery in leased) == [0, 1]


async def test_complete_stores_the_result_and_its_announcement_in_one_step(store: Store) -> None:
    claim = await store.claim("call:c-1", "me", "args", lease=60, keep=3600, now=NOW)
    assert claim.won
    announce = Announcement(
        "call.completed", {"data": {"call_id": "c-1"}}, NOW + 1, "client:bot", "client:bot|call:c-1"
    )
    assert not await store.complete("call:c-1", "someone-else", {"text": "x"}, NOW + 1, announce)
    assert await store.lease_due(NOW + 2, lease=30) == []  # not stored, not announced

    unwritable = Announcement("call.completed", {"data": {1, 2}}, NOW + 1, "client:bot", "s")
    with pytest.raises(TypeError):  # the announcement cannot be written: neither is the result
        await store.complete("call:c-1", "me", {"text": "x"}, NOW + 1, unwritable)
    still = await store.get_claim("call:c-1", NOW + 1)
    assert still is not None and still.state is ClaimState.HELD and still.result is None
    assert await store.lease_due(NOW + 2, lease=30) == []

    assert await store.complete("call:c-1", "me", {"text": "done"}, NOW + 1, announce)
    done = await store.get_claim("call:c-1", NOW + 2)
    assert done is not None and done.state is ClaimState.DONE and done.result == {"text": "done"}
    (delivery,) = await store.lease_due(NOW + 2, lease=30)
    assert (delivery.topic, delivery.receiver, delivery.payload) == (
        "call.completed",
        "client:bot",
        {"data": {"call_id": "c-1"}},
    )


def _old_store(url: str) -> None:
    """The store as the version before receivers and streams left it, with one delivery in its outbox."""
    base, _, query = url.partition("?namespace=")
    row = ("old-1", "approval.requested", '{"data": {"api": "shop"}}', NOW, NOW)
    if url.startswith("sqlite:"):
        with closing(sqlite3.connect(url.removeprefix("sqlite:///"))) as db, db:  # `with db` only commits
            db.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
            for version, steps in enumerate(_sql.MIGRATIONS[:2], start=1):
                for statement in steps:
                    db.execute(statement)
                db.execute("INSERT INTO schema_version (version) VALUES (?)", (version,))
            db.execute(
                "INSERT INTO outbox (id, topic, payload, created_at, due_at) VALUES (?, ?, ?, ?, ?)", row
            )
    elif url.startswith("postgresql:"):
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f'CREATE SCHEMA "{query}"'.encode())
            conn.execute(f'SET search_path TO "{query}"'.encode())
            conn.execute(b"CREATE TABLE schema_version (version INTEGER NOT NULL)")
            for version, steps in enumerate(_sql.MIGRATIONS[:2], start=1):
                for statement in steps:
                    conn.execute(statement.encode())
                conn.execute(b"INSERT INTO schema_version (version) VALUES (%s)", (version,))
            conn.execute(
                b"INSERT INTO outbox (id, topic, payload, created_at, due_at) VALUES (%s, %s, %s, %s, %s)",
                row,
            )
    else:
        client = redis.Redis.from_url(base)
        client.set(f"{query}:schema_version", 2)
        fields = dict(zip(("id", "topic", "payload", "created_at"), row[:4], strict=True))
        client.hset(f"{query}:o:old-1", mapping={**fields, "created_at": repr(NOW), "attempts": "0"})
        client.zadd(f"{query}:due", {"old-1": NOW})
        client.close()


async def test_a_delivery_written_before_receivers_existed_is_still_handed_out_after_the_upgrade(
    store_url: str,
) -> None:
    _old_store(store_url)
    async with open_store(store_url) as upgraded:
        (old,) = await upgraded.lease_due(NOW + 1, lease=30)
        assert (old.id, old.receiver, old.stream, old.payload) == (
            "old-1",
            None,
            None,
            {"data": {"api": "shop"}},
        )
        await upgraded.ack(old.id)
        assert await upgraded.lease_due(NOW + 60, lease=30) == []


async def test_a_lease_leaves_the_receivers_it_is_told_to_skip_untouched(store: Store) -> None:
    for receiver in ("client:slow", "approvals", "client:slow", "client:other"):
        await store.enqueue("approval.requested", {"for": receiver}, NOW, receiver=receiver)
    await store.enqueue("approval.requested", {"for": "nobody"}, NOW)  # a row from before receivers
    leased = await store.lease_due(NOW, lease=30, skip=["client:slow", "client:other"])
    assert sorted(delivery.payload["for"] for delivery in leased) == ["approvals", "nobody"]
    later = await store.lease_due(NOW, lease=30)
    assert sorted((d.payload["for"], d.attempts) for d in later) == [
        ("client:other", 1),
        ("client:slow", 1),
        ("client:slow", 1),
    ]  # never leased while skipped: their first lease is their first attempt
