"""`files.folder`: the bytes of files in a folder on disk, their records in the store.

- The store keeps each file's record (owner, size, type, name, expiry) exactly as without a folder, with
  no bytes; so the owner check, expiry and several gateways sharing one store (and one folder) work as
  they do with bytes in the store. A record with no bytes of its own and a size above 0 has its bytes
  here.
- The bytes are at `<folder>/<file id>`. The id is the gateway's own (`f_` and 32 hex digits from
  `secrets`) and is checked against that pattern before it becomes a path: no name a request sends (not
  the filename, not an id in a URL) is ever joined to the folder, so nothing can climb out of it.
- A file is written atomically: into `.tmp-<random>` (created 0600, exclusively) in the same folder while
  the upload streams in, the size cap checked on every chunk (over it, the temp file is removed and
  nothing is kept); then fsynced and renamed onto its id. The gateway stores the record after the
  rename, so a record never names bytes that were not written whole.
- The folder is created 0700 when missing; an existing folder that group or others may enter is logged
  at start (the operator's to tighten; a shared volume may need its own rules).
- The sweep removes bytes no live record names (expired, deleted, or left by a crash between the rename
  and the record) and abandoned temp files, once they are `GRACE` seconds old, so an upload between its
  rename and its record is never swept. Names that are neither are left alone.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import re
import secrets
import stat
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import BinaryIO

import anyio.to_thread

from .._logging import log_event
from ..store import StoreError

FILE_ID = re.compile(r"f_[0-9a-f]{32}")
TEMP = ".tmp-"
GRACE = 15 * 60.0  # seconds: younger bytes without a record may be an upload about to store it
CHUNK = 1024 * 1024  # bytes written (and read back) per step in a worker thread


def new_file_id() -> str:
    return "f_" + secrets.token_hex(16)


class FileFolder:
    """One folder of file bytes; every blocking step runs in a worker thread."""

    def __init__(self, path: str) -> None:
        self.path = Path(path)
        self._ready = False

    def _failed(self, error: OSError) -> StoreError:
        return StoreError(f"the files folder {self.path} failed: {error.strerror or error}")

    def _ensure(self) -> None:
        if self._ready:
            return
        try:
            self.path.mkdir(mode=0o700, parents=True, exist_ok=True)
            mode = self.path.stat().st_mode
        except OSError as error:
            raise self._failed(error) from None
        if not stat.S_ISDIR(mode):
            raise StoreError(f"the files folder {self.path} is not a folder")
        if mode & 0o077:
            log_event(
                "files folder open to others",
                level=logging.WARNING,
                folder=str(self.path),
                mode=oct(stat.S_IMODE(mode)),
            )
        self._ready = True

    def where(self, file_id: str) -> Path:
        """The path of a file's bytes; only for an id of the gateway's own form."""
        if not FILE_ID.fullmatch(file_id):
            raise ValueError(f"not a file id: {file_id[:64]!r}")
        return self.path / file_id

    async def write(self, file_id: str, chunks: AsyncIterable[bytes], cap: int) -> int | None:
        """Stream `chunks` into the bytes of `file_id`; their size, or None (nothing kept) past `cap`.
        An empty file keeps nothing on disk: its record says it all."""
        final = self.where(file_id)
        await anyio.to_thread.run_sync(self._ensure)
        temp = self.path / (TEMP + secrets.token_hex(8))
        try:
            try:
                handle = await anyio.to_thread.run_sync(_create, temp)
            except FileNotFoundError:  # the folder was removed since: made again, once
                self._ready = False
                await anyio.to_thread.run_sync(self._ensure)
                handle = await anyio.to_thread.run_sync(_create, temp)
        except OSError as error:
            raise self._failed(error) from None
        size, pending, kept = 0, bytearray(), False
        try:
            async for chunk in chunks:
                size += len(chunk)
                if size > cap:
                    return None
                pending += chunk
                if len(pending) >= CHUNK:
                    await anyio.to_thread.run_sync(handle.write, bytes(pending))
                    pending.clear()
            await anyio.to_thread.run_sync(_finish, handle, bytes(pending), temp, final if size else None)
            kept = size > 0
            return size
        except OSError as error:
            raise self._failed(error) from None
        finally:
            if not handle.closed:
                handle.close()
            if not kept:
                with contextlib.suppress(OSError):
                    temp.unlink()

    async def stream(self, file_id: str) -> AsyncIterator[bytes] | None:
        """The bytes of `file_id` chunk by chunk (the file opened now, so a later removal does not cut
        the answer), or None when they are not here."""
        try:
            handle: BinaryIO = await anyio.to_thread.run_sync(self.where(file_id).open, "rb")
        except FileNotFoundError:
            return None
        except OSError as error:
            raise self._failed(error) from None

        async def chunks() -> AsyncIterator[bytes]:
            try:
                while chunk := await anyio.to_thread.run_sync(handle.read, CHUNK):
                    yield chunk
            finally:
                handle.close()

        return chunks()

    async def remove(self, file_id: str) -> None:
        try:
            await anyio.to_thread.run_sync(functools.partial(self.where(file_id).unlink, missing_ok=True))
        except OSError as error:
            raise self._failed(error) from None

    async def sweep(self, now: float, live: Callable[[list[str]], Awaitable[set[str]]]) -> int:
        """Remove bytes no live record names and abandoned temp files, each at least `GRACE` seconds
        old; how many were removed. A folder not made yet has nothing to sweep."""
        try:
            temps, ids = await anyio.to_thread.run_sync(_old_entries, self.path, now - GRACE)
        except OSError as error:
            raise self._failed(error) from None
        dead = [*temps]
        if ids:
            kept = await live(ids)
            dead += [self.path / name for name in ids if name not in kept]
        removed = 0
        for path in dead:
            with contextlib.suppress(FileNotFoundError):
                await anyio.to_thread.run_sync(path.unlink)
                removed += 1
        return removed


def _create(temp: Path) -> BinaryIO:
    descriptor = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    return os.fdopen(descriptor, "wb")


def _finish(handle: BinaryIO, rest: bytes, temp: Path, final: Path | None) -> None:
    """Write what is left, make it durable and rename it onto its name (None: an empty file, dropped)."""
    handle.write(rest)
    handle.flush()
    os.fsync(handle.fileno())
    handle.close()
    if final is None:
        return
    os.replace(temp, final)
    folder = os.open(final.parent, os.O_RDONLY)
    try:
        os.fsync(folder)  # the rename itself survives a crash
    finally:
        os.close(folder)


def _old_entries(path: Path, before: float) -> tuple[list[Path], list[str]]:
    """Temp files and file ids in `path` last written before `before`."""
    temps: list[Path] = []
    ids: list[str] = []
    try:
        entries = list(os.scandir(path))
    except FileNotFoundError:
        return [], []
    for entry in entries:
        try:
            if (
                not entry.is_file(follow_symlinks=False)
                or entry.stat(follow_symlinks=False).st_mtime >= before
            ):
                continue
        except FileNotFoundError:
            continue
        if entry.name.startswith(TEMP):
            temps.append(Path(entry.path))
        elif FILE_ID.fullmatch(entry.name):
            ids.append(entry.name)
    return temps, ids
