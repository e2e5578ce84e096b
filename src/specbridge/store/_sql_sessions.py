"""The SQL of stored sessions (`Store.put_session` and its kin), shared by SQLite and PostgreSQL: one row
per session, by the SHA-256 of its id, with its kind, owner, what it keeps (JSON) and its times. `P` is
the driver's placeholder. `session_from` reads Redis's hash of a session too (the same fields)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .._json import dumps
from ._model import StoredSession

TIME = "DOUBLE PRECISION"

# A migration step of `_sql.MIGRATIONS`.
SESSIONS_TABLE = (
    f"""CREATE TABLE sessions (
        id TEXT PRIMARY KEY, kind TEXT NOT NULL, owner TEXT NOT NULL, data TEXT NOT NULL,
        created_at {TIME} NOT NULL, last_seen {TIME} NOT NULL, expires_at {TIME} NOT NULL)""",
    "CREATE INDEX sessions_owner ON sessions (kind, owner, expires_at)",
    "CREATE INDEX sessions_expiry ON sessions (expires_at)",
)
FIELDS = ("id", "kind", "owner", "data", "created_at", "last_seen", "expires_at")


def values(session: StoredSession) -> tuple[Any, ...]:
    return (
        session.id,
        session.kind,
        session.owner,
        dumps(session.data),
        session.created_at,
        session.last_seen,
        session.expires_at,
    )


def session_from(row: Mapping[str, Any]) -> StoredSession:
    """A session from its row (SQL) or hash (Redis: `id` added, its key holds it)."""
    return StoredSession(
        id=row["id"],
        kind=row["kind"],
        owner=row["owner"],
        data=json.loads(row["data"]),
        created_at=float(row["created_at"]),
        last_seen=float(row["last_seen"]),
        expires_at=float(row["expires_at"]),
    )


def put(p: str) -> str:
    """Params: the `values` of a session. A session put again (the same id) is replaced."""
    columns = ", ".join(FIELDS)
    updates = ", ".join(f"{name} = excluded.{name}" for name in FIELDS[1:])
    return (
        f"INSERT INTO sessions ({columns}) VALUES ({', '.join([p] * len(FIELDS))}) "
        f"ON CONFLICT (id) DO UPDATE SET {updates}"
    )


def sweep(p: str) -> str:
    """Params: now."""
    return f"DELETE FROM sessions WHERE expires_at <= {p}"


def get(p: str) -> str:
    """Params: id, now."""
    return f"SELECT * FROM sessions WHERE id = {p} AND expires_at > {p}"


def touch(p: str) -> str:
    """Params: now (the last seen), expires_at, expires_at, id, now. Never shortens a session."""
    return (
        f"UPDATE sessions SET last_seen = {p}, expires_at = CASE WHEN expires_at < {p} THEN {p} "
        f"ELSE expires_at END WHERE id = {p} AND expires_at > {p}"
    )


def end(p: str) -> str:
    """Params: id."""
    return f"DELETE FROM sessions WHERE id = {p}"


def count(p: str) -> str:
    """Params: kind, owner, now."""
    return f"SELECT count(*) AS n FROM sessions WHERE kind = {p} AND owner = {p} AND expires_at > {p}"
