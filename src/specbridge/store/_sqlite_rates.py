"""`Store.count_call` on SQLite (`_rates`): one `BEGIN IMMEDIATE` transaction on the store's thread, so
it is atomic against every other connection and process on the file."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TypeVar

from . import _rates as sql
from ._rates import RateLimit

T = TypeVar("T")
P = "?"
_COUNTER = sql.counter(P)
_RESTART = sql.restart(P)
_OLDEST = sql.oldest(P)
_RECORD = sql.record(P)
_SWEEP = sql.sweep(P)


def count(db: sqlite3.Connection, limits: Sequence[RateLimit], now: float) -> tuple[float, ...]:
    """The step itself, inside the caller's write transaction."""
    slots: list[int] = []
    waits: list[float] = []
    for limit in limits:
        row = db.execute(_COUNTER, (limit.key, limit.calls, now + limit.window)).fetchone()
        counted = int(row["counted"])
        if int(row["calls"]) != limit.calls:
            db.execute(_RESTART[0], (limit.key,))
            db.execute(_RESTART[1], (limit.calls, limit.key))
            counted = 0
        slot = counted % limit.calls
        found = db.execute(_OLDEST, (limit.key, slot)).fetchone()
        slots.append(slot)
        waits.append(sql.wait(None if found is None else float(found["at"]), limit, now))
    if any(waits):
        return tuple(waits)
    for limit, slot in zip(limits, slots, strict=True):
        db.execute(_RECORD[0], (limit.key, slot, now))
        db.execute(_RECORD[1], (now + limit.window, limit.key))
    stale = [str(row["key"]) for row in db.execute(_SWEEP, (now, now)).fetchall()]
    if stale:
        db.execute(sql.forget_calls(P, len(stale)), stale)
    return tuple(waits)


class SqliteRates:
    """The rate-limit step of `SqliteStore` (which runs the transaction)."""

    if TYPE_CHECKING:

        async def _write(self, work: Callable[[sqlite3.Connection], T]) -> T: ...

    async def count_call(self, limits: Sequence[RateLimit], now: float) -> tuple[float, ...]:
        if not limits:
            return ()
        ordered = sorted(limits, key=lambda limit: limit.key)
        waits = dict(
            zip(
                (limit.key for limit in ordered),
                await self._write(lambda db: count(db, ordered, now)),
                strict=True,
            )
        )
        return tuple(waits[limit.key] for limit in limits)
