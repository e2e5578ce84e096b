"""Where a command's output goes (`tools -o`, `lint -o`, `lint --generate-baseline`), written safely, and
whether a terminal gets colour.

- `-` is standard output.
- A regular file (or a new one) is replaced atomically: the text goes to a temporary file beside it,
  which then takes its place with the old file's permissions, so a reader never sees half of it. A
  symlink to a regular file is followed: its target is replaced and the link stays.
- Anything else (a device such as /dev/stdout or /dev/null, a FIFO, a socket, or a symlink to one) is
  opened and written in place: renaming a file over it would destroy it.

A write that fails (a full disk, a closed pipe, no permission, a missing folder) is `output-unwritable`.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import sys
from typing import IO

from .._errors import ErrorCode, StartError

_WHY = {
    errno.ENOENT: "its folder does not exist",
    errno.ENOTDIR: "its folder does not exist",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.EROFS: "the file system is read-only",
    errno.EISDIR: "it is a folder",
    errno.ENOSPC: "the disk is full",
    errno.EDQUOT: "the disk quota is exceeded",
    errno.EPIPE: "the reading end of the pipe is closed",
}


def unwritable(path: str, error: OSError) -> StartError:
    why = _WHY.get(error.errno or 0) or error.strerror or type(error).__name__
    shown = "standard output" if path == "-" else path
    return StartError(f"cannot write {shown}: {why}", code=ErrorCode.OUTPUT_UNWRITABLE)


def write_output(path: str, text: str) -> None:
    """Write `text` (UTF-8) to `path` as described above, or raise StartError(`output-unwritable`)."""
    data = text.encode("utf-8")
    try:
        if path == "-":
            _write_stream(sys.stdout.buffer, data)
            return
        try:
            found = os.stat(path)  # follows a symlink to what it names
        except FileNotFoundError:
            found = None
        if found is not None and not stat.S_ISREG(found.st_mode):
            if stat.S_ISDIR(found.st_mode):
                raise IsADirectoryError(errno.EISDIR, "is a directory", path)
            with open(path, "wb", buffering=0) as stream:  # a device, FIFO or socket: in place
                _write_all(stream.fileno(), data)
            return
        _replace(os.path.realpath(path), data, found)
    except OSError as error:
        raise unwritable(path, error) from None


def _write_stream(stream: IO[bytes], data: bytes) -> None:
    try:
        stream.write(data)
        stream.flush()
    except BrokenPipeError:
        # Python would report the same closed pipe again when it flushes stdout at exit.
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())
        raise


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _replace(target: str, data: bytes, found: os.stat_result | None) -> None:
    folder, name = os.path.split(target)
    partial = os.path.join(folder, f".{name}.{os.getpid()}.partial")
    try:
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        try:
            _write_all(fd, data)
            if found is not None:
                os.fchmod(fd, stat.S_IMODE(found.st_mode))
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(partial, target)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(partial)
        raise


def wants_colour(stream: IO[str]) -> bool:
    """Colour for a terminal only: `NO_COLOR` (any value) turns it off, `FORCE_COLOR` (any value but
    empty or 0) turns it on for any stream (https://no-color.org, https://force-color.org)."""
    if os.environ.get("NO_COLOR"):
        return False
    forced = os.environ.get("FORCE_COLOR")
    if forced is not None and forced not in ("", "0"):
        return True
    isatty = getattr(stream, "isatty", None)
    return bool(isatty is not None and isatty()) and os.environ.get("TERM") != "dumb"
