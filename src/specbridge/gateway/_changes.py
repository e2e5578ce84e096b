"""What tells the gateway a file it serves from changed (the config, a local document): a cheap marker
looked at on every poll, and the digest that decides whether the content really changed."""

from __future__ import annotations

import hashlib
import os

from .._files import MAX_DOCUMENT_BYTES, read_bounded


def marker(path: str | None) -> tuple[int, int, int] | None:
    """A cheap change marker for a local file (mtime, size, inode); None for URLs and missing files."""
    if path is None or path.startswith(("http://", "https://")):
        return None
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return (stat.st_mtime_ns, stat.st_size, stat.st_ino)


def digest(path: str) -> str:
    try:
        return hashlib.sha256(read_bounded(path, MAX_DOCUMENT_BYTES)).hexdigest()
    except OSError:
        return ""
