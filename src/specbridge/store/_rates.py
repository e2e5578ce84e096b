"""Rate-limit counters (`Store.count_call`): what the backends share, the record of one limit and the SQL
of the relational ones.

A limit of `calls` in `window` seconds is a sliding window over the times of the last `calls` calls
counted under its key: a call has room when the oldest of them (the `calls`-th most recent) is at least
`window` seconds old, and the wait is until it is. Nothing is bucketed into calendar minutes, so a limit
never lets twice its calls through across a boundary.

- SQL (SQLite, PostgreSQL): a counter row per key (`rate_counters`: how many calls were counted, the
  limit it was counted for, until when any of them matters) and a ring of `calls` times
  (`rate_calls`, slot = count modulo `calls`). Every step reads or writes a row by its primary key,
  whatever the limit: one call costs the same under `10/hour` and `100000/day`. The counter row is
  the lock: SQLite takes its write lock up front (`BEGIN IMMEDIATE`), PostgreSQL locks the row it
  upserts (`_postgres_rates`: the same steps in a function of the schema, one statement); a step with
  several limits takes them in key order. A changed limit starts its key afresh.
- Redis (`_redis_rates`): a sorted set of call times per key, trimmed to the window, in one Lua script.

Keys whose last call is older than their window are forgotten as other calls are counted (SQL: a few
per counted call; Redis: the set's own expiry), so the store holds only limits that still matter.
"""

from __future__ import annotations

from dataclasses import dataclass

SWEEP = 8  # stale keys forgotten by one counted call (SQL backends)


@dataclass(frozen=True, slots=True)
class RateLimit:
    """One limit a call is counted against: at most `calls` calls in any `window` seconds under `key`
    (the caller's name for what is counted, e.g. a hash of API, client and tool)."""

    key: str
    calls: int
    window: float


MIGRATION = (
    """CREATE TABLE rate_counters (
        key TEXT PRIMARY KEY, calls INTEGER NOT NULL, counted BIGINT NOT NULL,
        expires_at DOUBLE PRECISION NOT NULL)""",
    "CREATE INDEX rate_counters_expiry ON rate_counters (expires_at)",
    """CREATE TABLE rate_calls (
        key TEXT NOT NULL, slot INTEGER NOT NULL, at DOUBLE PRECISION NOT NULL, PRIMARY KEY (key, slot))""",
)


def counter(p: str) -> str:
    """The counter row of a key, made if missing (params: key, calls, expires_at): its limit and count.
    On PostgreSQL the upsert locks the row until the transaction ends."""
    return (
        f"INSERT INTO rate_counters (key, calls, counted, expires_at) VALUES ({p}, {p}, 0, {p}) "
        "ON CONFLICT (key) DO UPDATE SET key = EXCLUDED.key RETURNING calls, counted"
    )


def restart(p: str) -> tuple[str, str]:
    """A key counted for another limit starts afresh (params: key; then calls, key)."""
    return (
        f"DELETE FROM rate_calls WHERE key = {p}",
        f"UPDATE rate_counters SET calls = {p}, counted = 0 WHERE key = {p}",
    )


def oldest(p: str) -> str:
    """The time in the slot the next call would take (params: key, slot)."""
    return f"SELECT at FROM rate_calls WHERE key = {p} AND slot = {p}"


def record(p: str) -> tuple[str, str]:
    """A counted call: its time in its slot (params: key, slot, at), the counter moved on (params:
    expires_at, key)."""
    return (
        f"INSERT INTO rate_calls (key, slot, at) VALUES ({p}, {p}, {p}) "
        "ON CONFLICT (key, slot) DO UPDATE SET at = EXCLUDED.at",
        f"UPDATE rate_counters SET counted = counted + 1, expires_at = {p} WHERE key = {p}",
    )


def sweep(p: str) -> str:
    """Forget a few keys whose calls are all older than their window (params: now, now): their
    counters, whose keys it returns (their calls go next)."""
    return (
        "DELETE FROM rate_counters WHERE key IN (SELECT key FROM rate_counters WHERE expires_at <= "
        f"{p} LIMIT {SWEEP}) AND expires_at <= {p} RETURNING key"
    )


def forget_calls(p: str, count: int) -> str:
    return f"DELETE FROM rate_calls WHERE key IN ({', '.join([p] * count)})"


def wait(at: float | None, limit: RateLimit, now: float) -> float:
    """Seconds until a slot last used at `at` is free under `limit` (0.0: free now)."""
    if at is None or at <= now - limit.window:
        return 0.0
    return at + limit.window - now
