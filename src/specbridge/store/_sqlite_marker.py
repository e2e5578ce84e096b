"""`SqliteStore`'s marker and guarantees (`Store.read_marker`, `write_marker`, `guarantees`): one row,
written and read back in one transaction of the store's worker thread."""

from __future__ import annotations

import sqlite3
from typing import TypeVar

from . import _sql_marker as sql
from ._marker import Guarantees, Marker
from ._parts import SqlitePart

T = TypeVar("T")
P = "?"


class SqliteMarker(SqlitePart):
    async def read_marker(self) -> Marker | None:
        return await self._run(lambda db: sql.marker_from(db.execute(sql.READ).fetchone()))

    async def write_marker(self, marker: Marker, *, replace: str | None) -> Marker:
        def work(db: sqlite3.Connection) -> Marker:
            db.execute(sql.write(P), sql.params(marker, replace))
            found = sql.marker_from(db.execute(sql.READ).fetchone())
            assert found is not None
            return found

        return await self._write(work)

    async def guarantees(self) -> Guarantees:
        def work(db: sqlite3.Connection) -> Guarantees:
            version = db.execute(sql.VERSION).fetchone()["version"]
            journal = str(db.execute("PRAGMA journal_mode").fetchone()["journal_mode"])
            synchronous = {0: "off", 1: "normal", 2: "full", 3: "extra"}.get(
                int(db.execute("PRAGMA synchronous").fetchone()["synchronous"]), "?"
            )
            settings = (("journal_mode", journal), ("synchronous", synchronous))
            note = "a file on this machine: one host's instances share it, others cannot"
            return Guarantees("sqlite", int(version or 0), settings, synchronous != "off", note)

        return await self._run(work)
