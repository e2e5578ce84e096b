"""Structured logs: one JSON object per line on stderr, with no secrets and no argument values (or, for
a person at a terminal, `--log-format text`: the same records as readable lines).

Only the fields named by the caller of `log_event` are written; nothing from a request body, an
argument or a header is ever passed in, so nothing secret can leak through a log line. Text lines go to a
terminal, so every control character in them (C0 such as ESC, DEL, C1 such as CSI, line separators, bidi
overrides) is written as an escape (`\x1b`): a URL path a caller chose cannot clear the screen, retitle
the window or forge a line. Records of the
libraries the gateway runs on (the MCP SDK, uvicorn, Python's own warnings) go through the same handler,
so every line on stderr has the one format.
"""

from __future__ import annotations

import logging
import re
import sys
import time
from typing import Any, TextIO

import orjson

LOGGER_NAME = "specbridge.gateway"
logger = logging.getLogger(LOGGER_NAME)


class JsonFormatter(logging.Formatter):
    """`{"ts": …, "level": …, "event": …, …fields}` per record."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": round(record.created, 3),
            "level": record.levelname.lower(),
            "logger": record.name,
            "event": record.getMessage(),
        }
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            entry.update(fields)
        if record.exc_info and record.exc_info[0] is not None:
            # The exception type only: messages of foreign exceptions may quote values.
            entry["exception"] = record.exc_info[0].__name__
        return orjson.dumps(entry, default=str).decode()


class TextFormatter(logging.Formatter):
    """`HH:MM:SS level event key=value …` per record, for a terminal."""

    def format(self, record: logging.LogRecord) -> str:
        clock = time.strftime("%H:%M:%S", time.localtime(record.created))
        parts = [clock, f"{record.levelname.lower():<7}", escaped(record.getMessage())]
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            parts += [f"{escaped(str(key))}={_text(value)}" for key, value in fields.items()]
        if record.name not in (LOGGER_NAME, "specbridge"):
            parts.append(f"logger={escaped(record.name)}")
        if record.exc_info and record.exc_info[0] is not None:
            parts.append(f"exception={escaped(record.exc_info[0].__name__)}")
        return " ".join(parts)


_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def escaped(text: str) -> str:
    """`text` with every character a terminal acts on written as an escape (`\\x1b`, `\\u202e`)."""
    return _CONTROLS.sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    return _NAMED.get(char) or (f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}")


def _text(value: Any) -> str:
    shown = value if isinstance(value, str) else orjson.dumps(value, default=str).decode()
    if shown and not any(char in shown for char in ' "=\\') and not _CONTROLS.search(shown):
        return shown
    return '"' + escaped(shown.replace("\\", "\\\\").replace('"', '\\"')) + '"'


LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING, "error": logging.ERROR}
FORMATTERS: dict[str, type[logging.Formatter]] = {"json": JsonFormatter, "text": TextFormatter}


def configure_logging(
    stream: TextIO | None = None, level: int = logging.INFO, fmt: str = "json"
) -> logging.Handler:
    """Send the gateway's records (at `level` and above), the libraries' warnings and errors, and
    Python's warnings to `stream` (stderr), as JSON lines (`fmt="json"`) or readable text (`"text"`)."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(FORMATTERS[fmt]())
    quieter = max(level, logging.WARNING)
    for name, lvl in (
        (LOGGER_NAME, level),
        ("specbridge", level),
        ("mcp", quieter),
        ("uvicorn.error", quieter),
        ("py.warnings", logging.WARNING),
    ):
        target = logging.getLogger(name)
        target.handlers = [handler]
        target.setLevel(lvl)
        target.propagate = False
    # The root (anything else a library logs): ours replaces the one we added before, and leaves the
    # others (a test runner's) in place.
    root = logging.getLogger()
    for old in [entry for entry in root.handlers if getattr(entry, "specbridge", False)]:
        root.removeHandler(old)
    handler.specbridge = True  # type: ignore[attr-defined]
    root.addHandler(handler)
    if root.level > quieter or root.level == logging.NOTSET:
        root.setLevel(quieter)
    logging.captureWarnings(True)
    return handler


def log_event(event: str, *, level: int = logging.INFO, exc_info: bool = False, **fields: Any) -> None:
    # `logger.log` without its search of the stack for the caller's file and line (one per tool call;
    # the JSON lines do not carry them).
    if not logger.isEnabledFor(level):
        return
    record = logger.makeRecord(
        logger.name,
        level,
        "(specbridge.gateway)",
        0,
        event,
        (),
        sys.exc_info() if exc_info else None,
        extra={"fields": fields},
    )
    logger.handle(record)


def monotonic() -> float:
    return time.perf_counter()


class Outage:
    """One failure that breaks every call of something while it lasts (an issuer's keys, an API's
    credential): its first occurrence is logged once at `level` (warning by default) with `fix`, what
    brings it back; the next ones at debug, so a log is not a flood of the same line; and the first
    success after it once at info (`recovered`, with how long it lasted)."""

    def __init__(self, event: str, *, fix: str, recovered: str, level: int = logging.WARNING) -> None:
        self.event, self.fix, self.recovered_event, self.level = event, fix, recovered, level
        self.since: float | None = None  # when it began (monotonic); None while all is well

    def failed(self, **fields: Any) -> None:
        if self.since is not None:
            log_event(self.event, level=logging.DEBUG, **fields)
            return
        self.since = time.monotonic()
        log_event(self.event, level=self.level, fix=self.fix, **fields)

    def recovered(self, **fields: Any) -> None:
        if self.since is None:
            return
        lasted, self.since = time.monotonic() - self.since, None
        log_event(self.recovered_event, after_s=round(lasted, 1), **fields)
