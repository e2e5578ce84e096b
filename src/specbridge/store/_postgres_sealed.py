"""`PostgresStore`'s sealed values (`Store.put_sealed`, `get_sealed`, `take_sealed`): single statements,
so each holds across connections and instances (a take is one `DELETE … RETURNING`)."""

from __future__ import annotations

from . import _sql_sealed as sql
from ._parts import PostgresPart

P = "%s"


class PostgresSealed(PostgresPart):
    async def put_sealed(self, key: str, data: bytes, expires_at: float, now: float) -> None:
        await self._count(sql.forget(P), (now,))
        await self._count(sql.put(P), (key, data, expires_at))

    async def get_sealed(self, key: str, now: float) -> bytes | None:
        row = await self._one(sql.get(P), (key, now))
        return None if row is None else bytes(row["data"])

    async def take_sealed(self, key: str, now: float) -> bytes | None:
        row = await self._one(sql.take(P), (key, now))
        return None if row is None else bytes(row["data"])
