"""Reading a file the user named, with a bound: a path may be `/dev/zero`, a FIFO that never ends or a
multi-gigabyte file by mistake, and reading it whole would take the machine's memory first."""

from __future__ import annotations

import os
import select
import time

MAX_DOCUMENT_BYTES = 100 * 1024 * 1024  # the largest public API documents are a few tens of MB
MAX_CONFIG_BYTES = 16 * 1024 * 1024


class FileTooLarge(OSError):
    """More bytes than the bound allows (the file is not read further)."""

    def __init__(self, limit: int) -> None:
        size = f"{limit / (1024 * 1024):g} MB" if limit >= 1024 * 1024 else f"{limit} bytes"
        super().__init__(f"larger than {size}")
        self.limit = limit


def read_bounded(path: str | os.PathLike[str], limit: int) -> bytes:
    """The whole file, or FileTooLarge once more than `limit` bytes have come (OSErrors pass through)."""
    with open(path, "rb") as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise FileTooLarge(limit)
    return data


STDIN_IDLE_SECONDS = 30.0  # `-` on the command line: how long stdin may stay silent before it is given up


class StreamIdle(OSError):
    """No byte arrived for the idle bound (a pipe nobody writes to, a terminal nobody types into)."""


def read_stream(fd: int, limit: int, idle: float = STDIN_IDLE_SECONDS) -> bytes:
    """Everything a pipe or file descriptor (stdin: 0) holds until its end, up to `limit` bytes
    (FileTooLarge past it), giving up with StreamIdle when no byte arrives for `idle` seconds."""
    chunks: list[bytes] = []
    size = 0
    while True:
        deadline = time.monotonic() + idle
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise StreamIdle(f"nothing arrived for {idle:g} s")
            ready, _, _ = select.select([fd], [], [], left)
            if ready:
                break
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > limit:
            raise FileTooLarge(limit)
        chunks.append(chunk)
