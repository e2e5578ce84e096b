"""`Store.count_call` on PostgreSQL (`_rates`): one statement, a call of a PL/pgSQL function in the store's
schema, so a key's counter row is locked only while the server runs it (no lock held across round trips
to a busy client: every call of one client meets the same row). In it, each limit's counter row is
locked by an upsert (keys in order, so two steps never wait on each other), and the slot the call would
take is read after the lock, in a statement of its own: in a volatile function each statement sees what
was committed before it (read committed), so a step that waited for the lock sees the step before it.
Then the call is counted under every key, or under none.

The function is made (`CREATE OR REPLACE`) once per store object, under an advisory lock, the first time
a call is counted: no migration step, and an instance of another version makes it its own way.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any

import psycopg

from ._rates import SWEEP, RateLimit

FUNCTION = f"""
CREATE OR REPLACE FUNCTION specbridge_count_call(
    p_keys text[], p_calls bigint[], p_windows double precision[], p_now double precision
) RETURNS double precision[] LANGUAGE plpgsql VOLATILE AS $body$
DECLARE
    n integer := coalesce(array_length(p_keys, 1), 0);
    waits double precision[] := array_fill(0::double precision, ARRAY[n]);
    kept bigint;
    done bigint;
    oldest double precision;
    stale text[];
    full_up boolean := false;
BEGIN
    FOR i IN 1..n LOOP
        INSERT INTO rate_counters AS c (key, calls, counted, expires_at)
            VALUES (p_keys[i], p_calls[i], 0, p_now + p_windows[i])
            ON CONFLICT (key) DO UPDATE SET key = EXCLUDED.key
            RETURNING c.calls, c.counted INTO kept, done;
        IF kept <> p_calls[i] THEN
            DELETE FROM rate_calls r WHERE r.key = p_keys[i];
            UPDATE rate_counters c SET calls = p_calls[i], counted = 0 WHERE c.key = p_keys[i];
            done := 0;
        END IF;
        SELECT r.at INTO oldest FROM rate_calls r WHERE r.key = p_keys[i] AND r.slot = done % p_calls[i];
        IF FOUND AND oldest > p_now - p_windows[i] THEN
            waits[i] := oldest + p_windows[i] - p_now;
            full_up := true;
        END IF;
    END LOOP;
    IF NOT full_up THEN
        FOR i IN 1..n LOOP
            INSERT INTO rate_calls AS r (key, slot, at)
                SELECT c.key, c.counted % c.calls, p_now FROM rate_counters c WHERE c.key = p_keys[i]
                ON CONFLICT (key, slot) DO UPDATE SET at = EXCLUDED.at;
            UPDATE rate_counters c SET counted = c.counted + 1, expires_at = p_now + p_windows[i]
                WHERE c.key = p_keys[i];
        END LOOP;
        WITH gone AS (
            DELETE FROM rate_counters c WHERE c.key IN (
                SELECT s.key FROM rate_counters s WHERE s.expires_at <= p_now LIMIT {SWEEP} FOR UPDATE SKIP LOCKED
            ) AND c.expires_at <= p_now RETURNING c.key
        ) SELECT array_agg(key) INTO stale FROM gone;
        IF stale IS NOT NULL THEN
            DELETE FROM rate_calls r WHERE r.key = ANY(stale);
        END IF;
    END IF;
    RETURN waits;
END
$body$
""".encode()
CALL = b"SELECT specbridge_count_call(%s::text[], %s::bigint[], %s::double precision[], %s) AS waits"
Conn = psycopg.AsyncConnection[dict[str, Any]]


class PostgresRates:
    """The rate-limit step of `PostgresStore` (whose pool and schema it uses)."""

    schema: str
    _rates_made: bool = False

    if TYPE_CHECKING:

        def _connection(self) -> AbstractAsyncContextManager[Conn]: ...

    async def _make_rates(self) -> None:
        lock = int.from_bytes(
            hashlib.sha256(f"specbridge:{self.schema}:rates".encode()).digest()[:8], "big", signed=True
        )
        async with self._connection() as conn, conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock(%s)", (lock,))
            await conn.execute(FUNCTION)
        self._rates_made = True

    async def count_call(self, limits: Sequence[RateLimit], now: float) -> tuple[float, ...]:
        if not limits:
            return ()
        if not self._rates_made:
            await self._make_rates()
        ordered = sorted(limits, key=lambda limit: limit.key)
        params = (
            [limit.key for limit in ordered],
            [limit.calls for limit in ordered],
            [float(limit.window) for limit in ordered],
            float(now),
        )
        async with self._connection() as conn:
            row = await (await conn.execute(CALL, params)).fetchone()
        assert row is not None
        waits = dict(zip((limit.key for limit in ordered), row["waits"], strict=True))
        return tuple(float(waits[limit.key]) for limit in limits)
