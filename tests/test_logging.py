"""The gateway's log lines (`_logging.py`): in `--log-format text`, what a caller wrote (a URL path, a
header) never reaches the terminal as control characters."""

from __future__ import annotations

import io
import logging
import re
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from specbridge._logging import LOGGER_NAME, TextFormatter, configure_logging, log_event
from tests.support.gateway import IN_PROCESS, in_process_gateway, write_config
from tests.support.upstream import Upstream

# C0 (ESC, BEL, CR, backspace …), DEL, C1 (CSI 0x9b, OSC 0x9d …), line and paragraph separators, bidi
CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]")
HOSTILE = "/\x1b[2J\x1b]0;owned\x07\x9b31m\rfake line\u202egnp.exe\x08"


@pytest.fixture
def text_log() -> Iterator[io.StringIO]:
    """The gateway's log as text into a buffer; every logger configure_logging touches put back after."""
    names = [LOGGER_NAME, "specbridge", "mcp", "uvicorn.error", "py.warnings"]
    loggers = [logging.getLogger(name) for name in names]
    saved = [(logger.handlers[:], logger.level, logger.propagate) for logger in loggers]
    root = logging.getLogger()
    root_saved = (root.handlers[:], root.level)
    stream = io.StringIO()
    configure_logging(stream, level=logging.DEBUG, fmt="text")
    try:
        yield stream
    finally:
        for logger, (handlers, level, propagate) in zip(loggers, saved, strict=True):
            logger.handlers, logger.level, logger.propagate = handlers, level, propagate
        root.handlers, root.level = root_saved
        logging.captureWarnings(False)


def test_text_lines_escape_control_characters_in_the_event_and_every_field() -> None:
    record = logging.LogRecord(LOGGER_NAME, logging.WARNING, "x", 0, "refused " + HOSTILE, (), None)
    record.fields = {"path": HOSTILE, "plain": "a\x1bb", "nested": {"k": HOSTILE}}
    line = TextFormatter().format(record)
    assert not CONTROLS.search(line)
    assert "\\x1b[2J" in line and "\\x9b31m" in line and "\\u202e" in line and "\\r" in line


def test_text_lines_of_ordinary_values_are_unchanged() -> None:
    record = logging.LogRecord(LOGGER_NAME, logging.INFO, "x", 0, "api loaded", (), None)
    record.fields = {"api": "shop", "tools": 5, "reason": "a b", "café": "naïve"}
    line = TextFormatter().format(record)
    assert line.endswith('api loaded api=shop tools=5 reason="a b" café=naïve')


async def test_an_unauthenticated_path_reaches_the_text_log_escaped(
    text_log: io.StringIO, tmp_path: Path, upstream: Upstream
) -> None:
    config = write_config(tmp_path, upstream)
    async with in_process_gateway(config) as (transport, _), httpx2.AsyncClient(transport=transport) as plain:
        response = await plain.get(
            IN_PROCESS + "/oauth/connect/%1b%5b2J%1b%5d0;owned%07%c2%9b31m", headers={"Host": "evil.example"}
        )
    log_event("done")
    assert response.status_code == 421
    written = text_log.getvalue()
    assert "host refused" in written and "\\x1b[2J" in written and "\\x9b31m" in written
    assert not CONTROLS.search(written.replace("\n", ""))
