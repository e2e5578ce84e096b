"""The audit log (`audit: {path: FILE | stderr}`, PRODUCT §5.2): one JSON line per tool call and per admin
action, apart from the gateway's log, for whoever must answer "who did what, and when".

    {"time": "2026-05-01T09:30:12.345Z", "event": "tool call", "instance": "web-1:4127",
     "client": "support-bot", "api": "orders", "tool": "refundOrder", "approval": "0c1f…",
     "idempotency_hit": false, "outcome": "ok", "status": 200, "ms": 143.2}

Written by the call service (its `audit` step: every call of a document tool, whatever its end), the
admin API and page (an admin key used, a sign-in, an approval answered) and `specbridge approvals`. A
line holds only the fields its writer names, and no writer is handed an argument value, an answer, a
token or a secret, so none can reach the file.

The process has one audit log at a time (`audit_to`), like its gateway log. A file is opened for
appending (a new one made `0600`; one that was there, or a symlink's target, keeps its mode and is
logged as `audit log open to others` when group or others may read it): each line is one `write()` to an `O_APPEND` descriptor, so the lines of several
processes sharing the file (two gateway instances, the command line) never interleave. A write that
fails (a full disk) is said once in the gateway's log and the call goes on.
"""

from __future__ import annotations

import logging
import os
import socket
import stat
import sys
import threading
import time
from typing import Any

import orjson

from ._errors import ErrorCode, SpecbridgeError
from ._logging import log_event

STDERR = "stderr"
_instance: tuple[int, str] | None = None


def instance() -> str:
    """Which process wrote a line: `host:pid` (two instances on one file tell apart)."""
    global _instance
    pid = os.getpid()
    if _instance is None or _instance[0] != pid:
        _instance = (pid, f"{socket.gethostname()}:{pid}")
    return _instance[1]


def now_text() -> str:
    """The current time as the audit log writes it: UTC, ISO 8601, milliseconds."""
    seconds = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{int(seconds * 1000) % 1000:03d}Z"


class AuditLog:
    """Where audit lines go: a file (appended to) or stderr."""

    def __init__(self, target: str) -> None:
        """`target`: an absolute path or `stderr`; a file that cannot be opened is `audit-unwritable`."""
        self.target = target
        self._fd: int | None = None
        self._failed = False
        self._lock = threading.Lock()
        if target != STDERR:
            flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)
            try:
                self._fd = os.open(target, flags, 0o600)
            except OSError as error:
                raise SpecbridgeError(
                    f"the audit log {target} cannot be opened for writing: {error.strerror}",
                    code=ErrorCode.AUDIT_UNWRITABLE,
                ) from None
            mode = stat.S_IMODE(os.fstat(self._fd).st_mode)
            if mode & 0o077:  # a file that was there (or a link's target) keeps its mode: said, not changed
                log_event("audit log open to others", level=logging.WARNING, path=target, mode=f"{mode:04o}")

    def write(self, event: str, fields: dict[str, Any]) -> None:
        line = orjson.dumps({"time": now_text(), "event": event, "instance": instance(), **fields}) + b"\n"
        with self._lock:
            try:
                if self._fd is None:
                    sys.stderr.write(line.decode())
                    sys.stderr.flush()
                else:
                    os.write(self._fd, line)
            except (OSError, ValueError) as error:
                if not self._failed:
                    self._failed = True
                    log_event(
                        "audit log not written",
                        level=logging.ERROR,
                        code=str(ErrorCode.AUDIT_UNWRITABLE),
                        reason=getattr(error, "strerror", None) or type(error).__name__,
                    )

    def close(self) -> None:
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None


_current: AuditLog | None = None


def audit_to(target: str | None) -> AuditLog | None:
    """Send this process's audit lines to `target` from now on (None: nowhere); the log it opened. The
    one before is closed once the new one is open; a target that cannot be opened changes nothing."""
    global _current
    old = _current
    if old is not None and target is not None and old.target == target:
        return old
    _current = AuditLog(target) if target is not None else None
    if old is not None:
        old.close()
    return _current


def audit_event(event: str, **fields: Any) -> None:
    """One audit line with `fields` (names and outcomes only; see the module), if an audit log is on."""
    log = _current
    if log is not None:
        log.write(event, fields)


def auditing() -> bool:
    return _current is not None
