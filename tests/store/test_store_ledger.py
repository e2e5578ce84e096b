"""What the ledger (service/_ledger.py) asks of every store backend: an approval keeps the agent's key (its
store name) and the approval of the same call before it, and the newest approval of one call is found
whether it is open or settled; an approval written before the upgrade is read as it was."""

from __future__ import annotations

import secrets
import sqlite3
from contextlib import closing
from dataclasses import replace

import psycopg
import redis

from specbridge.store import Approval, Condition, Status, Store, _sql, open_store

NOW = 1_764_500_000.25

SETTLE = Condition(statuses=frozenset(Status), unsettled=True)


def approval(fingerprint: str = "fp-1", *, now: float = NOW) -> Approval:
    return Approval(
        id=secrets.token_urlsafe(18),
        api="shop",
        tool="refundOrder",
        client="bot",
        arguments={"orderId": "o-1"},
        bound={},
        fingerprint=fingerprint,
        status=Status.PENDING,
        created_at=now,
        expires_at=now + 3600,
    )


async def test_an_approval_keeps_the_agents_key_and_the_approval_it_repeats(store: Store) -> None:
    record = replace(approval(), idempotency_key="idem:abc", repeat_of="earlier-1")
    stored, _ = await store.attach_or_create(record, NOW)
    assert stored == record
    again = await store.get_approval(record.id)
    assert again is not None and (again.idempotency_key, again.repeat_of) == ("idem:abc", "earlier-1")


async def test_the_newest_approval_of_a_call_is_found_open_or_settled(store: Store) -> None:
    assert await store.latest_approval("fp-1") is None
    first, _ = await store.attach_or_create(approval(), NOW)
    await store.attach_or_create(approval("fp-2", now=NOW + 5), NOW + 5)  # another call
    assert await store.latest_approval("fp-1") == first  # open
    await store.update_approval(first.id, SETTLE, {"settled_at": NOW + 1})
    settled = await store.latest_approval("fp-1")
    assert settled is not None and (settled.id, settled.settled_at) == (first.id, NOW + 1)
    second, created = await store.attach_or_create(approval(now=NOW + 2), NOW + 2)
    assert created and await store.latest_approval("fp-1") == second


def _old_store(url: str, record: Approval) -> None:
    """The store as schema 7 (SQL) or 3 (Redis) left it, with one open approval in it."""
    base, _, query = url.partition("?namespace=")
    fields = ("id", "api", "tool", "client", "arguments", "bound", "fingerprint", "status")
    values = (record.id, "shop", "refundOrder", "bot", "{}", "{}", record.fingerprint, "pending")
    times = (record.created_at, record.expires_at)
    insert = f"INSERT INTO approvals ({', '.join(fields)}, created_at, expires_at) VALUES "
    if url.startswith("sqlite:"):
        with closing(sqlite3.connect(url.removeprefix("sqlite:///"))) as db, db:  # `with db` only commits
            db.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
            for version, steps in enumerate(_sql.MIGRATIONS[:7], start=1):
                for statement in steps:
                    db.execute(statement)
                db.execute("INSERT INTO schema_version (version) VALUES (?)", (version,))
            db.execute(insert + f"({', '.join('?' * 10)})", (*values, *times))
    elif url.startswith("postgresql:"):
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f'CREATE SCHEMA "{query}"'.encode())
            conn.execute(f'SET search_path TO "{query}"'.encode())
            conn.execute(b"CREATE TABLE schema_version (version INTEGER NOT NULL)")
            for version, steps in enumerate(_sql.MIGRATIONS[:7], start=1):
                for statement in steps:
                    conn.execute(statement.encode())
                conn.execute(b"INSERT INTO schema_version (version) VALUES (%s)", (version,))
            conn.execute((insert + f"({', '.join(['%s'] * 10)})").encode(), (*values, *times))
    else:
        client = redis.Redis.from_url(base)
        client.set(f"{query}:schema_version", 3)
        client.hset(
            f"{query}:a:{record.id}",
            mapping={**dict(zip(fields, values, strict=True)), "created_at": repr(times[0]),
                     "expires_at": repr(times[1])},
        )  # fmt: skip
        client.set(f"{query}:open:{record.fingerprint}", record.id)
        client.zadd(f"{query}:status:pending", {record.id: times[0]})
        client.zadd(f"{query}:all", {record.id: times[0]})
        client.close()


async def test_an_approval_written_before_the_upgrade_is_found_as_its_calls_newest(store_url: str) -> None:
    record = approval()
    _old_store(store_url, record)
    async with open_store(store_url) as upgraded:
        found = await upgraded.latest_approval(record.fingerprint)
        assert found is not None and found.id == record.id
        assert (found.idempotency_key, found.repeat_of) == (None, None)
        again, created = await upgraded.attach_or_create(approval(now=NOW + 1), NOW + 1)
        assert (again.id, created) == (record.id, False)
