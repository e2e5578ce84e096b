"""`PostgresStore`'s sessions (`Store.put_session` and its kin): single statements, so each holds across
connections and instances."""

from __future__ import annotations

from . import _sql_sessions as sql
from ._model import StoredSession
from ._parts import PostgresPart

P = "%s"


class PostgresSessions(PostgresPart):
    async def put_session(self, session: StoredSession, now: float) -> None:
        await self._count(sql.sweep(P), (now,))
        await self._count(sql.put(P), sql.values(session))

    async def get_session(self, session_id: str, now: float) -> StoredSession | None:
        row = await self._one(sql.get(P), (session_id, now))
        return None if row is None else sql.session_from(row)

    async def touch_session(self, session_id: str, expires_at: float, now: float) -> bool:
        return await self._count(sql.touch(P), (now, expires_at, expires_at, session_id, now)) > 0

    async def end_session(self, session_id: str) -> bool:
        return await self._count(sql.end(P), (session_id,)) > 0

    async def count_sessions(self, kind: str, owner: str, now: float) -> int:
        row = await self._one(sql.count(P), (kind, owner, now))
        return 0 if row is None else int(row["n"])

    async def sweep_sessions(self, now: float) -> int:
        return await self._count(sql.sweep(P), (now,))
