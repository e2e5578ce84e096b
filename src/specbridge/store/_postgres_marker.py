"""`PostgresStore`'s marker and guarantees (`Store.read_marker`, `write_marker`, `guarantees`): one row,
written by one statement (a conditional upsert), then read."""

from __future__ import annotations

from . import _sql_marker as sql
from ._base import StoreError
from ._marker import Guarantees, Marker
from ._parts import PostgresPart

P = "%s"


class PostgresMarker(PostgresPart):
    async def read_marker(self) -> Marker | None:
        return sql.marker_from(await self._one(sql.READ, ()))

    async def write_marker(self, marker: Marker, *, replace: str | None) -> Marker:
        await self._count(sql.write(P), sql.params(marker, replace))
        found = sql.marker_from(await self._one(sql.READ, ()))
        if found is None:
            raise StoreError(f"the store {self.name} lost its marker as it was written")
        return found

    async def guarantees(self) -> Guarantees:
        version = await self._one(sql.VERSION, ())
        settings = []
        for name in ("fsync", "synchronous_commit", "wal_level"):
            row = await self._one(f"SELECT current_setting('{name}') AS value", ())
            settings.append((name, str(row["value"]) if row else "?"))
        durable = dict(settings)["fsync"] == "on"
        note = "" if durable else "fsync is off: a crash of the server may lose or corrupt data"
        return Guarantees(
            "postgresql", int((version or {}).get("version") or 0), tuple(settings), durable, note
        )
