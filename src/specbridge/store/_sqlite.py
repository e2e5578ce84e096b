"""The SQLite store: one file, WAL, the standard library's sqlite3 on one worker thread.

One connection lives on one dedicated thread, so calls from the event loop never block it and never
interleave inside a transaction. Every write is `BEGIN IMMEDIATE`, which takes SQLite's write lock up
front: that is what makes each operation atomic against other processes on the same file too (the
command line answering approvals while a gateway runs). `synchronous=NORMAL` in WAL mode keeps every
committed transaction across a killed process; only a power cut may lose the last few.

A step waits for another process's lock at most the store's `timeout` (SQLite's busy timeout), and a
step cut off by that bound is interrupted (`sqlite3.Connection.interrupt`), so a locked file never
holds the worker thread for longer.

The file holds arguments, API answers and, by default, uploaded files' bytes: a folder the store makes
is `0700` and the database `0600` before SQLite first opens it (SQLite gives its `-wal` and `-shm`
files the database's mode). An existing store that group or others may read is used as it is and
logged as a warning (`store open to others`), as the files folder is.
"""

from __future__ import annotations

import asyncio  # asyncio: every step runs on the store's one thread (its executor); anyio has no such
import contextlib
import logging
import os
import sqlite3
import stat
import threading
import time
from collections.abc import Callable, Collection, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from .._logging import log_event
from . import _sql as sql
from ._base import StoreError
from ._bounded import DEFAULT_TIMEOUT
from ._model import Announcement, Approval, Claim, Condition, Delivery, Json, StoredFile
from ._records import (
    Announced,
    announcements,
    approval_from,
    approval_values,
    checked_changes,
    claim_from,
    delivery_from,
    delivery_values,
    encode,
    file_from,
    file_values,
)
from ._sqlite_listing import SqliteListing
from ._sqlite_marker import SqliteMarker
from ._sqlite_rates import SqliteRates
from ._sqlite_sealed import SqliteSealed
from ._sqlite_sessions import SqliteSessions

T = TypeVar("T")
P = "?"


def _dict_row(cursor: sqlite3.Cursor, row: tuple[Any, ...]) -> dict[str, Any]:
    return {column[0]: value for column, value in zip(cursor.description, row, strict=True)}


class SqliteStore(SqliteListing, SqliteMarker, SqliteRates, SqliteSealed, SqliteSessions):
    def __init__(self, path: Path | str, *, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.path = str(path)
        self.name = f"sqlite:///{self.path}"
        self.timeout = timeout
        self._executor: ThreadPoolExecutor | None = None
        self._db: sqlite3.Connection | None = None

    async def _run(self, work: Callable[[sqlite3.Connection], T]) -> T:
        if self._executor is None or self._db is None:
            raise StoreError(f"the store {self.name} is not started")
        db = self._db
        started = threading.Event()

        def step(db: sqlite3.Connection) -> T:
            started.set()
            return work(db)

        try:
            return await asyncio.get_running_loop().run_in_executor(self._executor, step, db)
        except sqlite3.Error as error:
            raise StoreError(f"the store {self.name} failed: {error}") from None
        except asyncio.CancelledError:
            if started.is_set():  # cut off while running (not while queued): stop the statement
                db.interrupt()
            raise

    async def _write(self, work: Callable[[sqlite3.Connection], T]) -> T:
        def transaction(db: sqlite3.Connection) -> T:
            db.execute("BEGIN IMMEDIATE")
            try:
                result = work(db)
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
            return result

        return await self._run(transaction)

    async def start(self) -> None:
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="specbridge-sqlite")

        def connect() -> sqlite3.Connection:
            if self.path != ":memory:":
                _private(Path(self.path))
            db = sqlite3.connect(
                self.path, timeout=self.timeout, isolation_level=None, check_same_thread=False
            )
            try:
                db.row_factory = _dict_row
                _wal(db)
                db.execute("PRAGMA synchronous=NORMAL")
            except BaseException:
                db.close()  # never left to the collector (Python 3.13 warns of it)
                raise
            return db

        try:
            self._db = await asyncio.get_running_loop().run_in_executor(self._executor, connect)
            await self._write(_migrate)
        except (sqlite3.Error, OSError) as error:
            await self.close()
            raise StoreError(f"cannot open the store {self.name}: {error}") from None
        except BaseException:
            await self.close()
            raise

    async def close(self) -> None:
        if self._db is not None:
            db, self._db = self._db, None
            if self._executor is not None:
                await asyncio.get_running_loop().run_in_executor(self._executor, db.close)
        if self._executor is not None:
            self._executor.shutdown(wait=False)
            self._executor = None

    # Approvals

    async def attach_or_create(
        self, approval: Approval, now: float, announce: Announced = None
    ) -> tuple[Approval, bool]:
        def work(db: sqlite3.Connection) -> tuple[Approval, bool]:
            db.execute(sql.expire_pending(P, one_call=True), (now, approval.fingerprint))
            row = db.execute(sql.open_approval(P), (approval.fingerprint,)).fetchone()
            if row is not None:
                return approval_from(row), False
            row = db.execute(sql.insert_approval(P), approval_values(approval)).fetchone()
            _enqueue(db, announce)
            return approval_from(row), True

        return await self._write(work)

    async def get_approval(self, approval_id: str) -> Approval | None:
        def work(db: sqlite3.Connection) -> Approval | None:
            row = db.execute("SELECT * FROM approvals WHERE id = ?", (approval_id,)).fetchone()
            return None if row is None else approval_from(row)

        return await self._run(work)

    async def latest_approval(self, fingerprint: str) -> Approval | None:
        def work(db: sqlite3.Connection) -> Approval | None:
            row = db.execute(sql.latest_approval(P), (fingerprint,)).fetchone()
            return None if row is None else approval_from(row)

        return await self._run(work)

    async def update_approval(
        self, approval_id: str, when: Condition, changes: Mapping[str, Json], announce: Announced = None
    ) -> Approval | None:
        statement, params = sql.update_approval(P, approval_id, when, checked_changes(changes))

        def work(db: sqlite3.Connection) -> Approval | None:
            row = db.execute(statement, params).fetchone()
            if row is None:
                return None
            _enqueue(db, announce)
            return approval_from(row)

        return await self._write(work)

    async def expire_due(self, now: float) -> int:
        return await self._write(
            lambda db: db.execute(sql.expire_pending(P, one_call=False), (now,)).rowcount
        )

    # Claims

    async def claim(
        self, key: str, owner: str, fingerprint: str, lease: float, keep: float, now: float
    ) -> Claim:
        def work(db: sqlite3.Connection) -> Claim:
            db.execute(sql.forget_claim(P), (key, now))
            row = db.execute(
                sql.insert_claim(P), (key, owner, fingerprint, now + lease, now + keep)
            ).fetchone()
            if row is not None:
                return claim_from(row, now, won=True)
            return claim_from(db.execute("SELECT * FROM claims WHERE key = ?", (key,)).fetchone(), now)

        return await self._write(work)

    async def complete(
        self, key: str, owner: str, result: Json, now: float, announce: Announced = None
    ) -> bool:
        params = (encode("result", result), key, owner)

        def work(db: sqlite3.Connection) -> bool:
            if db.execute(sql.complete_claim(P), params).rowcount != 1:
                return False
            _enqueue(db, announce)
            return True

        return await self._write(work)

    async def abandon(self, key: str, owner: str, *, sent: bool) -> bool:
        return await self._write(
            lambda db: db.execute(sql.abandon_claim(P, sent), (key, owner)).rowcount == 1
        )

    async def get_claim(self, key: str, now: float) -> Claim | None:
        def work(db: sqlite3.Connection) -> Claim | None:
            row = db.execute("SELECT * FROM claims WHERE key = ? AND expires_at > ?", (key, now)).fetchone()
            return None if row is None else claim_from(row, now)

        return await self._run(work)

    async def sweep(self, now: float) -> int:
        return await self._write(
            lambda db: db.execute("DELETE FROM claims WHERE expires_at <= ?", (now,)).rowcount
        )

    # Outbox

    async def _enqueue(self, one: Announcement, due: float | None) -> str:
        row = delivery_values(one, due)
        await self._write(lambda db: db.execute(sql.enqueue(P), row))
        return row[0]

    async def lease_due(
        self, now: float, lease: float, limit: int = 10, *, skip: Collection[str] = ()
    ) -> list[Delivery]:
        receivers = sorted(skip)

        def work(db: sqlite3.Connection) -> list[Delivery]:
            rows = db.execute(sql.due_heads(P, len(receivers)), (now, *receivers, limit)).fetchall()
            leased = [
                db.execute(
                    "UPDATE outbox SET due_at = ?, attempts = attempts + 1 WHERE id = ? RETURNING *",
                    (now + lease, row["id"]),
                ).fetchone()
                for row in rows
            ]
            return [delivery_from(row) for row in leased]

        return await self._write(work)

    async def ack(self, delivery_id: str) -> None:
        await self._write(lambda db: db.execute("DELETE FROM outbox WHERE id = ?", (delivery_id,)))

    async def retry_at(self, delivery_id: str, due: float, error: str) -> None:
        await self._write(lambda db: db.execute(sql.retry_at(P), (due, error, delivery_id)))

    # Files

    async def put_file(self, file: StoredFile, data: bytes) -> None:
        params = (*file_values(file), data)
        await self._write(lambda db: db.execute(sql.insert_file(P), params))

    async def get_file(self, file_id: str, owner: str, now: float) -> tuple[StoredFile, bytes] | None:
        def work(db: sqlite3.Connection) -> tuple[StoredFile, bytes] | None:
            row = db.execute(sql.select_file(P, data=True), (file_id, owner, now)).fetchone()
            return None if row is None else (file_from(row), bytes(row["data"]))

        return await self._run(work)

    async def delete_file(self, file_id: str, owner: str, now: float) -> bool:
        params = (file_id, owner, now)
        return await self._write(lambda db: db.execute(sql.delete_file(P), params).rowcount == 1)

    async def sweep_files(self, now: float) -> int:
        return await self._write(
            lambda db: db.execute("DELETE FROM files WHERE expires_at <= ?", (now,)).rowcount
        )

    async def live_files(self, file_ids: Collection[str], now: float) -> set[str]:
        ids = list(file_ids)

        def work(db: sqlite3.Connection) -> set[str]:
            found: set[str] = set()
            for at in range(0, len(ids), sql.LIVE_BATCH):
                batch = ids[at : at + sql.LIVE_BATCH]
                rows = db.execute(sql.live_files(P, len(batch)), (now, *batch)).fetchall()
                found.update(str(row["id"]) for row in rows)
            return found

        return await self._run(work)


def _enqueue(db: sqlite3.Connection, announce: Announced) -> None:
    for one in announcements(announce):
        db.execute(sql.enqueue(P), delivery_values(one))


def _migrate(db: sqlite3.Connection) -> None:
    db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
    current = db.execute("SELECT max(version) AS version FROM schema_version").fetchone()["version"] or 0
    if current > sql.VERSION:
        raise StoreError(sql.too_new(current))
    for version in range(current + 1, sql.VERSION + 1):
        for statement in sql.MIGRATIONS[version - 1]:
            db.execute(statement)
        db.execute("INSERT INTO schema_version (version) VALUES (?)", (version,))


def _private(path: Path) -> None:
    """Make the store's folder (`0700`) and file (`0600`) when missing, so nobody else ever reads them;
    log an existing one that group or others may read (its modes are the operator's)."""
    folder = path.parent
    if not folder.exists():
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600))
    for one in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        try:
            mode = stat.S_IMODE(one.stat().st_mode)
        except FileNotFoundError:
            continue
        if mode & 0o077:
            log_event("store open to others", level=logging.WARNING, file=str(one), mode=oct(mode))


def _wal(db: sqlite3.Connection, attempts: int = 200) -> None:
    """Switch a file to WAL. On a new file that several processes open at once the switch can answer
    "database is locked" at once, without waiting on the busy timeout (SQLite takes no busy handler
    for it), so it is tried again, a bounded number of times, a few milliseconds apart."""
    for attempt in range(attempts):
        try:
            db.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or attempt == attempts - 1:
                raise
            time.sleep(0.005 + 0.005 * min(attempt, 10))
