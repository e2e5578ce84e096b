"""Reading a file the user named, with a bound: a path may be `/dev/zero`, a FIFO that never ends or a
multi-gigabyte file by mistake, and reading it whole would take the machine's memory first."""

from __future__ import annotations

import os

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
