"""`SqliteStore`'s sessions (`Store.put_session` and its kin): each one statement (two for a put, which
forgets expired sessions first) in the store's one worker thread."""

from __future__ import annotations

import sqlite3
from typing import TypeVar

from . import _sql_sessions as sql
from ._model import StoredSession
from ._parts import SqlitePart

T = TypeVar("T")
P = "?"


class SqliteSessions(SqlitePart):
    async def put_session(self, session: StoredSession, now: float) -> None:
        def work(db: sqlite3.Connection) -> None:
            db.execute(sql.sweep(P), (now,))
            db.execute(sql.put(P), sql.values(session))

        await self._write(work)

    async def get_session(self, session_id: str, now: float) -> StoredSession | None:
        def work(db: sqlite3.Connection) -> StoredSession | None:
            row = db.execute(sql.get(P), (session_id, now)).fetchone()
            return None if row is None else sql.session_from(row)

        return await self._run(work)

    async def touch_session(self, session_id: str, expires_at: float, now: float) -> bool:
        def work(db: sqlite3.Connection) -> bool:
            params = (now, expires_at, expires_at, session_id, now)
            return db.execute(sql.touch(P), params).rowcount > 0

        return await self._write(work)

    async def end_session(self, session_id: str) -> bool:
        def work(db: sqlite3.Connection) -> bool:
            return db.execute(sql.end(P), (session_id,)).rowcount > 0

        return await self._write(work)

    async def count_sessions(self, kind: str, owner: str, now: float) -> int:
        def work(db: sqlite3.Connection) -> int:
            return int(db.execute(sql.count(P), (kind, owner, now)).fetchone()["n"])

        return await self._run(work)

    async def sweep_sessions(self, now: float) -> int:
        def work(db: sqlite3.Connection) -> int:
            return db.execute(sql.sweep(P), (now,)).rowcount

        return await self._write(work)
