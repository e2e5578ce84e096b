"""The SQL of sealed values (`Store.put_sealed` and its kin), shared by SQLite and PostgreSQL: one row
per key, the caller's sealed bytes and their expiry. `P` is the driver's placeholder."""

from __future__ import annotations

# A migration step of `_sql.MIGRATIONS`. BYTEA: PostgreSQL's blob; SQLite keeps a blob under any type.
SEALED_TABLE = (
    "CREATE TABLE sealed (key TEXT PRIMARY KEY, data BYTEA NOT NULL, expires_at DOUBLE PRECISION NOT NULL)",
    "CREATE INDEX sealed_expiry ON sealed (expires_at)",
)


def put(p: str) -> str:
    """Params: key, data, expires_at."""
    return (
        f"INSERT INTO sealed (key, data, expires_at) VALUES ({p}, {p}, {p}) ON CONFLICT (key) "
        "DO UPDATE SET data = excluded.data, expires_at = excluded.expires_at"
    )


def forget(p: str) -> str:
    """Params: now."""
    return f"DELETE FROM sealed WHERE expires_at <= {p}"


def get(p: str) -> str:
    """Params: key, now."""
    return f"SELECT data FROM sealed WHERE key = {p} AND expires_at > {p}"


def take(p: str) -> str:
    """Params: key, now. One statement: of two takers, the second deletes nothing and gets no row."""
    return f"DELETE FROM sealed WHERE key = {p} AND expires_at > {p} RETURNING data"
