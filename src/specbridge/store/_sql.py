"""The SQL both relational backends share: the schema's migrations and the statements built per call.

`P` is the driver's placeholder (`?` for sqlite3, `%s` for psycopg). Types are spelled so that both
SQLite and PostgreSQL accept them (SQLite gives DOUBLE PRECISION real affinity).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import _rates as rates
from ._model import Condition
from ._records import APPROVAL_FIELDS
from ._sql_marker import MARKER_TABLE
from ._sql_sealed import SEALED_TABLE
from ._sql_sessions import SESSIONS_TABLE

TIME = "DOUBLE PRECISION"

# Version N of the schema is MIGRATIONS[N - 1]; append, never edit a released step.
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        f"""CREATE TABLE approvals (
            id TEXT PRIMARY KEY, api TEXT NOT NULL, tool TEXT NOT NULL, client TEXT NOT NULL,
            arguments TEXT NOT NULL, bound TEXT NOT NULL, fingerprint TEXT NOT NULL, status TEXT NOT NULL,
            created_at {TIME} NOT NULL, expires_at {TIME} NOT NULL, reason TEXT, answered_by TEXT,
            answered_at {TIME}, owner TEXT, lease_until {TIME}, finished_at {TIME}, result TEXT,
            settled_at {TIME})""",
        # At most one open approval per call: the backstop behind `attach_or_create`.
        "CREATE UNIQUE INDEX approvals_open ON approvals (fingerprint) WHERE settled_at IS NULL",
        "CREATE INDEX approvals_status ON approvals (status, created_at)",
        f"""CREATE TABLE claims (
            key TEXT PRIMARY KEY, owner TEXT NOT NULL, state TEXT NOT NULL, fingerprint TEXT NOT NULL,
            lease_until {TIME} NOT NULL, expires_at {TIME} NOT NULL, result TEXT)""",
        "CREATE INDEX claims_expiry ON claims (expires_at)",
        f"""CREATE TABLE outbox (
            id TEXT PRIMARY KEY, topic TEXT NOT NULL, payload TEXT NOT NULL, created_at {TIME} NOT NULL,
            due_at {TIME} NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, last_error TEXT)""",
        "CREATE INDEX outbox_due ON outbox (due_at, created_at)",
    ),
    (
        # BYTEA: PostgreSQL's blob; SQLite keeps a blob as it is under any declared type.
        f"""CREATE TABLE files (
            id TEXT PRIMARY KEY, owner TEXT NOT NULL, content_type TEXT NOT NULL, filename TEXT,
            size INTEGER NOT NULL, created_at {TIME} NOT NULL, expires_at {TIME} NOT NULL,
            data BYTEA NOT NULL)""",
        "CREATE INDEX files_expiry ON files (expires_at)",
    ),
    (
        # Fan-out and ordering: whose webhook a delivery goes to, and the stream (receiver + call) whose
        # deliveries go out one at a time, oldest first. NULL in both: routed by the payload, unordered.
        "ALTER TABLE outbox ADD COLUMN receiver TEXT",
        "ALTER TABLE outbox ADD COLUMN stream TEXT",
        "CREATE INDEX outbox_stream ON outbox (stream, created_at, id)",
    ),
    rates.MIGRATION,  # 4: rate-limit counters (`_rates`)
    SEALED_TABLE,  # 5: sealed values (`_sql_sealed`: grants' tokens, states)
    SESSIONS_TABLE,  # 6: sessions any instance serves (`_sql_sessions`: MCP sessions, admin sign-ins)
    MARKER_TABLE,  # 7: the store's marker (`_sql_marker`: whether it lost its data while gateways ran)
    (
        # 8: the ledger (service/_ledger.py): an approval keeps the agent's key (its store name) and the
        # approval of the same call before it; the newest approval of one call is found by its index.
        "ALTER TABLE approvals ADD COLUMN idempotency_key TEXT",
        "ALTER TABLE approvals ADD COLUMN repeat_of TEXT",
        "CREATE INDEX approvals_call ON approvals (fingerprint, created_at)",
    ),
)
VERSION = len(MIGRATIONS)


def too_new(current: int) -> str:
    return (
        f"the store's schema is version {current}, newer than this specbridge knows ({VERSION}): "
        "another instance runs a newer specbridge; upgrade this one"
    )


COLUMNS = ", ".join(APPROVAL_FIELDS)


def insert_approval(p: str) -> str:
    return f"INSERT INTO approvals ({COLUMNS}) VALUES ({', '.join([p] * len(APPROVAL_FIELDS))}) RETURNING *"


def expire_pending(p: str, *, one_call: bool) -> str:
    """Params: now (and the fingerprint with `one_call`). An expired approval stays open (unsettled)
    until an agent is told, once: the next identical call gets `approval-expired` and settles it."""
    sql = (
        "UPDATE approvals SET status = 'expired' WHERE settled_at IS NULL "
        f"AND status = 'pending' AND expires_at <= {p}"
    )
    return sql + f" AND fingerprint = {p}" if one_call else sql


def open_approval(p: str) -> str:
    return f"SELECT * FROM approvals WHERE fingerprint = {p} AND settled_at IS NULL"


def latest_approval(p: str) -> str:
    return f"SELECT * FROM approvals WHERE fingerprint = {p} ORDER BY created_at DESC, id DESC LIMIT 1"


def update_approval(
    p: str, approval_id: str, when: Condition, changes: Mapping[str, Any]
) -> tuple[str, list[Any]]:
    sets = ", ".join(f"{name} = {p}" for name in changes) or "status = status"
    params: list[Any] = [*changes.values(), approval_id]
    statuses = sorted(str(status) for status in when.statuses)
    where = [f"id = {p}", f"status IN ({', '.join([p] * len(statuses))})"]
    params += statuses
    if when.owner is not None:
        where.append(f"owner = {p}")
        params.append(when.owner)
    if when.not_expired_at is not None:
        where.append(f"expires_at > {p}")
        params.append(when.not_expired_at)
    if when.lease_passed_at is not None:
        where.append(f"lease_until <= {p}")
        params.append(when.lease_passed_at)
    if when.unsettled:
        where.append("settled_at IS NULL")
    return f"UPDATE approvals SET {sets} WHERE {' AND '.join(where)} RETURNING *", params


def forget_claim(p: str) -> str:
    return f"DELETE FROM claims WHERE key = {p} AND expires_at <= {p}"


def insert_claim(p: str) -> str:
    return (
        "INSERT INTO claims (key, owner, state, fingerprint, lease_until, expires_at) "
        f"VALUES ({p}, {p}, 'held', {p}, {p}, {p}) ON CONFLICT (key) DO NOTHING RETURNING *"
    )


def complete_claim(p: str) -> str:
    return (
        f"UPDATE claims SET state = 'done', result = {p} WHERE key = {p} AND owner = {p} AND state = 'held'"
    )


def abandon_claim(p: str, sent: bool) -> str:
    if sent:
        return f"UPDATE claims SET state = 'unknown' WHERE key = {p} AND owner = {p} AND state = 'held'"
    return f"DELETE FROM claims WHERE key = {p} AND owner = {p} AND state = 'held'"


OUTBOX_FIELDS = ("id", "topic", "payload", "created_at", "due_at", "receiver", "stream")


def enqueue(p: str) -> str:
    return f"INSERT INTO outbox ({', '.join(OUTBOX_FIELDS)}) VALUES ({', '.join([p] * len(OUTBOX_FIELDS))})"


def due_heads(p: str, skip: int = 0) -> str:
    """Ids of due deliveries, oldest first, leaving out any with an older delivery of its stream still
    in the outbox (leased, or waiting for a retry), and any for the `skip` receivers named in the
    params. Params: now, the receivers to skip, limit."""
    leave = f" AND (receiver IS NULL OR receiver NOT IN ({', '.join([p] * skip)}))" if skip else ""
    return (
        f"SELECT id FROM outbox o WHERE due_at <= {p}{leave} AND (stream IS NULL OR NOT EXISTS ("
        "SELECT 1 FROM outbox e WHERE e.stream = o.stream AND (e.created_at < o.created_at OR "
        f"(e.created_at = o.created_at AND e.id < o.id)))) ORDER BY created_at, id LIMIT {p}"
    )


def retry_at(p: str) -> str:
    return f"UPDATE outbox SET due_at = {p}, last_error = {p} WHERE id = {p}"


FILE_FIELDS = ("id", "owner", "content_type", "filename", "size", "created_at", "expires_at")


def insert_file(p: str) -> str:
    return f"INSERT INTO files ({', '.join(FILE_FIELDS)}, data) VALUES ({', '.join([p] * 8)})"


def select_file(p: str, *, data: bool) -> str:
    columns = ", ".join(FILE_FIELDS) + (", data" if data else "")
    return f"SELECT {columns} FROM files WHERE id = {p} AND owner = {p} AND expires_at > {p}"


def delete_file(p: str) -> str:
    return f"DELETE FROM files WHERE id = {p} AND owner = {p} AND expires_at > {p}"


# Ids asked about in one `live_files` statement (SQLite's default cap on parameters is 999 in old builds).
LIVE_BATCH = 500


def live_files(p: str, count: int) -> str:
    return f"SELECT id FROM files WHERE expires_at > {p} AND id IN ({', '.join([p] * count)})"
