"""`Store.count_call` on PostgreSQL (`_rates`): one transaction that locks each key's counter row (in key
order, so two steps never wait on each other) by upserting it, then reads the slot the call would take.
Each read is a statement of its own, run after the lock is held, so it sees what the step before it
committed (read committed).

The statements go in pipeline mode: the locks and reads of every limit in one round trip, the writes,
the sweep and the commit in a second (a limit whose count is kept for another `calls` is restarted
first, at the cost of more).
"""

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
# The time in the slot the next call takes, the slot found from the (locked) counter row itself.
_OLDEST = (
    b"SELECT r.at FROM rate_calls r JOIN rate_counters c ON c.key = r.key "
    b"WHERE c.key = %s AND r.slot = c.counted %% c.calls"
)
# The call's time in its slot (found from the locked counter row) and the counter moved on, in one
# statement. Params: now, key, expires_at, key.
_RECORD = (
    b"WITH slot AS (INSERT INTO rate_calls (key, slot, at) SELECT key, counted %% calls, %s FROM rate_counters "
    b"WHERE key = %s ON CONFLICT (key, slot) DO UPDATE SET at = EXCLUDED.at) "
    b"UPDATE rate_counters SET counted = counted + 1, expires_at = %s WHERE key = %s"
)
# A few stale keys forgotten, their calls with them, in one statement.
_SWEEP = (
    f"WITH gone AS ({sql.sweep(P, skip_locked=True)}) DELETE FROM rate_calls WHERE key IN (SELECT key FROM gone)"
).encode()
Conn = psycopg.AsyncConnection[dict[str, Any]]


class PostgresRates:
    """The rate-limit step of `PostgresStore` (whose pool it runs on)."""

    if TYPE_CHECKING:

        def _connection(self) -> AbstractAsyncContextManager[Conn]: ...

    async def count_call(self, limits: Sequence[RateLimit], now: float) -> tuple[float, ...]:
        if not limits:
            return ()
        ordered = sorted(limits, key=lambda limit: limit.key)
        waits: dict[str, float] = {}
        async with self._connection() as conn, conn.pipeline() as pipeline, conn.transaction():
            found = []
            for limit in ordered:
                counter = await conn.execute(_COUNTER, (limit.key, limit.calls, now + limit.window))
                found.append((limit, counter, await conn.execute(_OLDEST, (limit.key,))))
            await pipeline.sync()
            for limit, counter, oldest in found:
                row = await counter.fetchone()
                at = await oldest.fetchone()
                if row is None or int(row["calls"]) != limit.calls:  # counted for another limit before
                    await conn.execute(_RESTART[0], (limit.key,))
                    await conn.execute(_RESTART[1], (limit.calls, limit.key))
                    at = None
                waits[limit.key] = sql.wait(None if at is None else float(at["at"]), limit, now)
            if not any(waits.values()):
                for limit in ordered:
                    await conn.execute(_RECORD, (now, limit.key, now + limit.window, limit.key))
                await conn.execute(_SWEEP, (now, now))
        return tuple(waits[limit.key] for limit in limits)
