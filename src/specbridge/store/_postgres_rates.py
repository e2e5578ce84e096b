"""`Store.count_call` on PostgreSQL (`_rates`): one transaction that locks each key's counter row (in key
order, so two steps never wait on each other) by upserting it, then reads the slot the call would take.
Each read is a statement of its own, made after the lock is held, so it sees what the step before it
committed (read committed)."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any

import psycopg

from . import _rates as sql
from ._rates import RateLimit

P = "%s"
_COUNTER = sql.counter(P).encode()
_RESTART = tuple(statement.encode() for statement in sql.restart(P))
_OLDEST = sql.oldest(P).encode()
# The call's time in its slot and the counter moved on, in one round trip.
_RECORD = (
    f"WITH slot AS ({sql.record(P)[0]}) "
    "UPDATE rate_counters SET counted = counted + 1, expires_at = %s WHERE key = %s"
).encode()
_SWEEP = sql.sweep(P, skip_locked=True).encode()
Conn = psycopg.AsyncConnection[dict[str, Any]]


class PostgresRates:
    """The rate-limit step of `PostgresStore` (whose pool it runs on)."""

    if TYPE_CHECKING:

        def _connection(self) -> AbstractAsyncContextManager[Conn]: ...

    async def count_call(self, limits: Sequence[RateLimit], now: float) -> tuple[float, ...]:
        if not limits:
            return ()
        ordered = sorted(limits, key=lambda limit: limit.key)
        async with self._connection() as conn, conn.transaction():
            slots: list[int] = []
            waits: dict[str, float] = {}
            for limit in ordered:
                row = await _one(conn, _COUNTER, (limit.key, limit.calls, now + limit.window))
                counted = int(row["counted"])
                if int(row["calls"]) != limit.calls:
                    await conn.execute(_RESTART[0], (limit.key,))
                    await conn.execute(_RESTART[1], (limit.calls, limit.key))
                    counted = 0
                slot = counted % limit.calls
                found = await (await conn.execute(_OLDEST, (limit.key, slot))).fetchone()
                slots.append(slot)
                waits[limit.key] = sql.wait(None if found is None else float(found["at"]), limit, now)
            if not any(waits.values()):
                for limit, slot in zip(ordered, slots, strict=True):
                    await conn.execute(_RECORD, (limit.key, slot, now, now + limit.window, limit.key))
                stale = [str(row["key"]) for row in await (await conn.execute(_SWEEP, (now, now))).fetchall()]
                if stale:
                    await conn.execute(sql.forget_calls(P, len(stale)).encode(), stale)
        return tuple(waits[limit.key] for limit in limits)


async def _one(conn: Conn, statement: bytes, params: Sequence[Any]) -> dict[str, Any]:
    row = await (await conn.execute(statement, params)).fetchone()
    assert row is not None  # an upsert with RETURNING always returns its row
    return row
