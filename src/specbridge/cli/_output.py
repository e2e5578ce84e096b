"""Where a command's output goes (`tools -o`, `lint -o`, `lint --generate-baseline`), written safely, and
whether a terminal gets colour.

- `-` is standard output.
- A regular file (or a new one) is replaced atomically: the text goes to a temporary file beside it,
  which then takes its place with the old file's permissions, so a reader never sees half of it. A
  symlink to a regular file is followed: its target is replaced and the link stays.
- Anything else (a device such as /dev/stdout or /dev/null, a FIFO, a socket, or a symlink to one) is
  opened and written in place: renaming a file over it would destroy it.
- A file the command reads (`reads`: its document and the files it `$ref`s, the `--config`) is never
  replaced, nor a file that is something else a person keeps (`foreign`: an OpenAPI document, a
  specbridge.yaml, an MCP client's config), unless the command writes that kind itself
  (`lint --generate-baseline` merges into a config; `install` into a client's config).
- A folder that does not exist is not made: a typo in a path is said, not turned into a new folder.

Each refusal, and a write that fails (a full disk, a closed pipe, no permission), is `output-unwritable`
naming why; nothing was written.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
import sys
from collections.abc import Iterable
from typing import IO

import orjson

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


def refused(path: str, why: str) -> StartError:
    return StartError(
        f"refusing to write {path}: {why}; nothing was written", code=ErrorCode.OUTPUT_UNWRITABLE
    )


def check_not_read(path: str, reads: Iterable[str]) -> None:
    """Refuse `path` when it is (or links to) one of the files the command reads."""
    for read in reads:
        if not read or read == "-" or "://" in read or read.startswith("<"):
            continue
        with contextlib.suppress(OSError):
            if os.path.samefile(path, read):
                raise refused(path, f"it is {read}, which this command reads")


# A key at the start of a line, then `:` (a YAML mapping's top level); JSON is parsed.
_TOP_KEY = re.compile(r"""^("[^"\n]*"|'[^'\n]*'|[A-Za-z_$][\w$.-]*)[ \t]*:(?:[ \t]|$)""", re.MULTILINE)
_SNIFFED_BYTES = 1 << 20
_CONFIG_KEYS = frozenset({"apis", "clients", "admins", "store", "store_key", "lint", "approvals"})


def foreign(path: str) -> str | None:
    """What the regular file at `path` is, when it is something a person keeps that no output flag
    writes: "an OpenAPI document", "a specbridge.yaml", "an MCP client's config"; None otherwise (an
    earlier report or export, a new or unreadable file)."""
    try:
        with open(path, "rb") as stream:
            head = stream.read(_SNIFFED_BYTES)
    except OSError:
        return None
    keys = top_level_keys(head)
    if keys & {"openapi", "swagger"}:
        return "an OpenAPI document"
    if keys & _CONFIG_KEYS:
        return "a specbridge.yaml"
    if keys & {"mcpServers", "servers", "mcp"}:
        return "an MCP client's config"
    return None


def top_level_keys(head: bytes) -> set[str]:
    """The top-level keys of a JSON object or a YAML mapping, from (the start of) its text."""
    text = head.decode("utf-8", "replace").lstrip("\ufeff \t\r\n")
    if text.startswith("{"):
        try:
            data = orjson.loads(head)
        except orjson.JSONDecodeError:  # cut short (or not JSON): only a document's version is telling
            return set(re.findall(r'"(openapi|swagger)"[ \t\r\n]*:[ \t\r\n]*"[0-9]', text))
        return {str(key) for key in data} if isinstance(data, dict) else set()
    return {match.strip("\"'") for match in _TOP_KEY.findall(text)}


def write_output(path: str, text: str, *, reads: Iterable[str] = (), replaces: str | None = None) -> None:
    """Write `text` (UTF-8) to `path` as described above, or raise StartError(`output-unwritable`).
    `reads`: the files the command read; `replaces`: the kind of kept file (as `foreign` names it) the
    command writes itself, which may be replaced."""
    data = text.encode("utf-8")
    try:
        if path == "-":
            _write_stream(sys.stdout.buffer, data)
            return
        try:
            found = os.stat(path)  # follows a symlink to what it names
        except FileNotFoundError:
            found = None
        if found is not None and stat.S_ISREG(found.st_mode):
            check_not_read(path, reads)
            kind = foreign(path)
            if kind is not None and kind != replaces:
                raise refused(path, f"it is {kind}, not what this command writes")
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
