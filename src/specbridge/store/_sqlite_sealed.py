"""`SqliteStore`'s sealed values (`Store.put_sealed`, `get_sealed`, `take_sealed`): each one statement
(two for a put, which forgets expired values first) in the store's one worker thread."""

from __future__ import annotations

import sqlite3
from typing import TypeVar

from . import _sql_sealed as sql
from ._parts import SqlitePart

T = TypeVar("T")
P = "?"


class SqliteSealed(SqlitePart):
    async def put_sealed(self, key: str, data: bytes, expires_at: float, now: float) -> None:
        def work(db: sqlite3.Connection) -> None:
            db.execute(sql.forget(P), (now,))
            db.execute(sql.put(P), (key, data, expires_at))

        await self._write(work)

    async def get_sealed(self, key: str, now: float) -> bytes | None:
        def work(db: sqlite3.Connection) -> bytes | None:
            row = db.execute(sql.get(P), (key, now)).fetchone()
            return None if row is None else bytes(row["data"])

        return await self._run(work)

    async def take_sealed(self, key: str, now: float) -> bytes | None:
        def work(db: sqlite3.Connection) -> bytes | None:
            row = db.execute(sql.take(P), (key, now)).fetchone()
            return None if row is None else bytes(row["data"])

        return await self._write(work)
