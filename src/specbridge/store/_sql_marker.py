"""The SQL of the store's marker (`Store.read_marker`, `write_marker`; see `_marker`), shared by SQLite
and PostgreSQL: one row. `P` is the driver's placeholder."""

from __future__ import annotations

from typing import Any

from ._marker import Marker, MarkerKind

# A migration step of `_sql.MIGRATIONS`.
MARKER_TABLE = (
    "CREATE TABLE marker (name TEXT PRIMARY KEY, id TEXT NOT NULL, created_at DOUBLE PRECISION NOT NULL, "
    "kind TEXT NOT NULL)",
)

READ = "SELECT id, created_at, kind FROM marker WHERE name = 'marker'"
VERSION = "SELECT max(version) AS version FROM schema_version"


def write(p: str) -> str:
    """Params: id, created_at, kind, replace, replace (`ANY`, an id, or None: only when there is none)."""
    return (
        f"INSERT INTO marker (name, id, created_at, kind) VALUES ('marker', {p}, {p}, {p}) "
        "ON CONFLICT (name) DO UPDATE SET id = excluded.id, created_at = excluded.created_at, "
        f"kind = excluded.kind WHERE {p} = '*' OR marker.id = {p}"
    )


def params(marker: Marker, replace: str | None) -> tuple[Any, ...]:
    return (marker.id, marker.created_at, str(marker.kind), replace or "", replace or "")


def marker_from(row: Any) -> Marker | None:
    if row is None:
        return None
    return Marker(str(row["id"]), float(row["created_at"]), MarkerKind(row["kind"]))
