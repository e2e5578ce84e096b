"""Structured logs: one JSON object per line on stderr, with no secrets and no argument values.

Only the fields named by the caller of `log_event` are written; nothing from a request body, an
argument or a header is ever passed in, so nothing secret can leak through a log line.
"""

from __future__ import annotations

import logging
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


def configure_logging(stream: TextIO | None = None, level: int = logging.INFO) -> logging.Handler:
    """Send the gateway's (and the SDK's warnings') records to `stream` (stderr) as JSON lines."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonFormatter())
    for name, lvl in ((LOGGER_NAME, level), ("mcp", logging.WARNING), ("uvicorn.error", logging.WARNING)):
        target = logging.getLogger(name)
        target.handlers = [handler]
        target.setLevel(lvl)
        target.propagate = False
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
