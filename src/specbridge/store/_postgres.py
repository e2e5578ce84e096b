"""The PostgreSQL store: psycopg 3 with an async connection pool, tables in a schema of their own.

Atomic steps are single statements (`UPDATE … WHERE status IN … RETURNING`) or one transaction
leaning on a unique index (`INSERT … ON CONFLICT DO NOTHING`), so they hold across connections and
instances. Migrations run at start inside one transaction holding `pg_advisory_xact_lock`, so two
instances starting together apply each step once and the later one finds the schema current.

The pool holds at most `max_connections` (`?connections=`, 10 by default) and reconnects within about
a second of the database coming back, however long it was away: psycopg_pool's own retry doubles its
wait without a cap (after a 150 s outage approvals came back 81 s after the database did), so here a
reconnection gives up after `RECONNECT` seconds and another starts at once (`_reconnect_again`): while
the database is away one is tried about every second. A connection idle for more than a second is
checked as it is handed out (an empty query), so one broken by a restart is replaced instead of failing
a request after the database is back; under steady load connections go unchecked (no extra round trip).
"""

from __future__ import annotations

import hashlib
import math
import time
import weakref
from collections.abc import AsyncIterator, Collection, Mapping
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import psycopg
from psycopg import sql as pgsql
from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from . import _sql as sql
from ._base import StoreError
from ._bounded import DEFAULT_TIMEOUT
from ._model import Announcement, Approval, Claim, Condition, Delivery, Json, StoredFile
from ._postgres_listing import PostgresListing
from ._postgres_marker import PostgresMarker
from ._postgres_rates import PostgresRates
from ._postgres_sealed import PostgresSealed
from ._postgres_sessions import PostgresSessions
from ._records import (
    Announced,
    announcements,
    approval_from,
    approval_values,
    checked_changes,
    claim_from,
    delivery_from,
    delivery_values,
    encode,
    file_from,
    file_values,
)

P = "%s"
Conn = psycopg.AsyncConnection[dict[str, Any]]
# Seconds one reconnection keeps retrying (at 1 s, then at 2 s) before it gives up and another starts
# (see the module).
RECONNECT = 2.0
FRESH = 1.0  # seconds: a connection that served a step this recently is handed out unchecked


def without_password(url: str) -> str:
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{parts.username or ''}:***@{host}"))


class PostgresStore(PostgresListing, PostgresMarker, PostgresRates, PostgresSealed, PostgresSessions):
    slow_to_cancel = True  # psycopg cancels a query in the server and waits for it (`_bounded`)

    def __init__(
        self,
        url: str,
        *,
        schema: str = "specbridge",
        max_connections: int = 10,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> None:
        self.url = url
        self.schema = schema
        self.name = without_password(url)
        self.max_connections = max_connections
        self.timeout = timeout
        self._pool: AsyncConnectionPool[Conn] | None = None
        self._used: weakref.WeakKeyDictionary[Conn, float] = weakref.WeakKeyDictionary()

    async def _check(self, conn: Conn) -> None:
        """A connection as it is handed out: one that served a step in the last `FRESH` seconds goes as
        it is; any other is checked with an empty query first (one a restart broke is replaced)."""
        if time.monotonic() - self._used.get(conn, 0.0) > FRESH:
            await AsyncConnectionPool.check_connection(conn)

    def _kwargs(self) -> dict[str, Any]:
        return {
            "autocommit": True,
            "row_factory": dict_row,
            "options": f"-c search_path={self.schema}",
            "connect_timeout": max(2, math.ceil(self.timeout)),  # libpq counts whole seconds, 2 at least
        }

    async def start(self) -> None:
        try:
            async with await psycopg.AsyncConnection.connect(self.url, **self._kwargs()) as conn:
                await self._migrate(conn)
            pool: AsyncConnectionPool[Conn] = AsyncConnectionPool(
                self.url,
                kwargs=self._kwargs(),
                min_size=1,
                max_size=self.max_connections,
                open=False,
                timeout=self.timeout,
                check=self._check,
                reconnect_timeout=RECONNECT,
                reconnect_failed=_reconnect_again,
            )
            await pool.open(wait=True, timeout=max(10.0, self.timeout))
        except (psycopg.Error, PoolTimeout) as error:
            raise StoreError(f"cannot open the store {self.name}: {_first_line(error)}") from None
        self._pool = pool

    async def _migrate(self, conn: Conn) -> None:
        lock = int.from_bytes(
            hashlib.sha256(f"specbridge:{self.schema}".encode()).digest()[:8], "big", signed=True
        )
        schema = pgsql.Identifier(self.schema)
        async with conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock(%s)", (lock,))
            await conn.execute(pgsql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(schema))
            await conn.execute(pgsql.SQL("SET LOCAL search_path TO {}").format(schema))
            await conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            row = await (await conn.execute("SELECT max(version) AS version FROM schema_version")).fetchone()
            current = int(row["version"] or 0) if row else 0
            if current > sql.VERSION:
                raise StoreError(f"cannot open the store {self.name}: {sql.too_new(current)}")
            for version in range(current + 1, sql.VERSION + 1):
                for statement in sql.MIGRATIONS[version - 1]:
                    await conn.execute(statement.encode())
                await conn.execute("INSERT INTO schema_version (version) VALUES (%s)", (version,))

    async def close(self) -> None:
        if self._pool is not None:
            pool, self._pool = self._pool, None
            await pool.close()

    @asynccontextmanager
    async def _connection(self) -> AsyncIterator[Conn]:
        """A pooled connection; a database error inside becomes a `StoreError` naming the store."""
        if self._pool is None:
            raise StoreError(f"the store {self.name} is not started")
        try:
            async with self._pool.connection() as conn:
                yield conn
                self._used[conn] = time.monotonic()
        except psycopg.Error as error:
            raise StoreError(f"the store {self.name} failed: {_first_line(error)}") from None

    async def _one(self, statement: str, params: Any) -> dict[str, Any] | None:
        async with self._connection() as conn:
            row: dict[str, Any] | None = await (await conn.execute(statement.encode(), params)).fetchone()
            return row

    async def _count(self, statement: str, params: Any) -> int:
        async with self._connection() as conn:
            return int((await conn.execute(statement.encode(), params)).rowcount)

    # Approvals

    async def attach_or_create(
        self, approval: Approval, now: float, announce: Announced = None
    ) -> tuple[Approval, bool]:
        insert = sql.insert_approval(P).replace(
            " RETURNING", " ON CONFLICT (fingerprint) WHERE settled_at IS NULL DO NOTHING RETURNING"
        )
        async with self._connection() as conn:
            # The open one may be settled between our conflict and our look: then try again.
            for _ in range(5):
                async with conn.transaction():
                    await conn.execute(
                        sql.expire_pending(P, one_call=True).encode(), (now, approval.fingerprint)
                    )
                    row = await (await conn.execute(insert.encode(), approval_values(approval))).fetchone()
                    if row is not None:
                        await _enqueue(conn, announce)
                        return approval_from(row), True
                    row = await (
                        await conn.execute(sql.open_approval(P).encode(), (approval.fingerprint,))
                    ).fetchone()
                    if row is not None:
                        return approval_from(row), False
        raise StoreError(f"the store {self.name} kept changing under one approval request; try again")

    async def get_approval(self, approval_id: str) -> Approval | None:
        row = await self._one("SELECT * FROM approvals WHERE id = %s", (approval_id,))
        return None if row is None else approval_from(row)

    async def latest_approval(self, fingerprint: str) -> Approval | None:
        row = await self._one(sql.latest_approval(P), (fingerprint,))
        return None if row is None else approval_from(row)

    async def update_approval(
        self, approval_id: str, when: Condition, changes: Mapping[str, Json], announce: Announced = None
    ) -> Approval | None:
        statement, params = sql.update_approval(P, approval_id, when, checked_changes(changes))
        if not announcements(announce):
            row = await self._one(statement, params)
            return None if row is None else approval_from(row)
        async with self._connection() as conn, conn.transaction():
            row = await (await conn.execute(statement.encode(), params)).fetchone()
            if row is not None:
                await _enqueue(conn, announce)
        return None if row is None else approval_from(row)

    async def expire_due(self, now: float) -> int:
        return await self._count(sql.expire_pending(P, one_call=False), (now,))

    # Claims

    async def claim(
        self, key: str, owner: str, fingerprint: str, lease: float, keep: float, now: float
    ) -> Claim:
        async with self._connection() as conn, conn.transaction():
            await conn.execute(sql.forget_claim(P).encode(), (key, now))
            cursor = await conn.execute(
                sql.insert_claim(P).encode(), (key, owner, fingerprint, now + lease, now + keep)
            )
            row = await cursor.fetchone()
            if row is not None:
                return claim_from(row, now, won=True)
            cursor = await conn.execute(b"SELECT * FROM claims WHERE key = %s", (key,))
            row = await cursor.fetchone()
        if row is None:  # cannot happen: the conflicting row is committed before DO NOTHING returns
            raise StoreError(f"the store {self.name} lost the claim {key!r}")
        return claim_from(row, now)

    async def complete(
        self, key: str, owner: str, result: Json, now: float, announce: Announced = None
    ) -> bool:
        params = (encode("result", result), key, owner)
        if not announcements(announce):
            return await self._count(sql.complete_claim(P), params) == 1
        async with self._connection() as conn, conn.transaction():
            if (await conn.execute(sql.complete_claim(P).encode(), params)).rowcount != 1:
                return False
            await _enqueue(conn, announce)
        return True

    async def abandon(self, key: str, owner: str, *, sent: bool) -> bool:
        return await self._count(sql.abandon_claim(P, sent), (key, owner)) == 1

    async def get_claim(self, key: str, now: float) -> Claim | None:
        row = await self._one("SELECT * FROM claims WHERE key = %s AND expires_at > %s", (key, now))
        return None if row is None else claim_from(row, now)

    async def sweep(self, now: float) -> int:
        return await self._count("DELETE FROM claims WHERE expires_at <= %s", (now,))

    # Outbox

    async def _enqueue(self, one: Announcement, due: float | None) -> str:
        row = delivery_values(one, due)
        await self._count(sql.enqueue(P), row)
        return row[0]

    async def lease_due(
        self, now: float, lease: float, limit: int = 10, *, skip: Collection[str] = ()
    ) -> list[Delivery]:
        receivers = sorted(skip)
        statement = (
            "UPDATE outbox SET due_at = %s, attempts = attempts + 1 WHERE id IN ("
            + sql.due_heads(P, len(receivers))
            + " FOR UPDATE SKIP LOCKED) RETURNING *"
        )
        params = (now + lease, now, *receivers, limit)
        async with self._connection() as conn:
            rows = await (await conn.execute(statement.encode(), params)).fetchall()
        return sorted((delivery_from(row) for row in rows), key=lambda d: (d.created_at, d.id))

    async def ack(self, delivery_id: str) -> None:
        await self._count("DELETE FROM outbox WHERE id = %s", (delivery_id,))

    async def retry_at(self, delivery_id: str, due: float, error: str) -> None:
        await self._count(sql.retry_at(P), (due, error, delivery_id))

    # Files

    async def put_file(self, file: StoredFile, data: bytes) -> None:
        await self._count(sql.insert_file(P), (*file_values(file), data))

    async def get_file(self, file_id: str, owner: str, now: float) -> tuple[StoredFile, bytes] | None:
        row = await self._one(sql.select_file(P, data=True), (file_id, owner, now))
        return None if row is None else (file_from(row), bytes(row["data"]))

    async def delete_file(self, file_id: str, owner: str, now: float) -> bool:
        return await self._count(sql.delete_file(P), (file_id, owner, now)) == 1

    async def sweep_files(self, now: float) -> int:
        return await self._count("DELETE FROM files WHERE expires_at <= %s", (now,))

    async def live_files(self, file_ids: Collection[str], now: float) -> set[str]:
        ids, found = list(file_ids), set[str]()
        async with self._connection() as conn:
            for at in range(0, len(ids), sql.LIVE_BATCH):
                batch = ids[at : at + sql.LIVE_BATCH]
                cursor = await conn.execute(sql.live_files(P, len(batch)).encode(), (now, *batch))
                found.update(str(row["id"]) for row in await cursor.fetchall())
        return found


async def _reconnect_again(pool: AsyncConnectionPool[Conn]) -> None:
    """A reconnection gave up (after `RECONNECT` seconds): start another at once, unless the pool is
    closing, so while the database is away one is tried about every second, never less often."""
    if not pool.closed:
        await pool.check()


async def _enqueue(conn: Conn, announce: Announced) -> None:
    for one in announcements(announce):
        await conn.execute(sql.enqueue(P).encode(), delivery_values(one))


def _first_line(error: BaseException) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0]
