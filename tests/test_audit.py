"""The audit log itself (`_audit.py`): JSON lines appended to a private file or written to stderr, whole
when several processes share the file, one process-wide target that a gateway points at its config's
`audit.path` at start and on reload, and a coded error for a file that cannot be written."""

from __future__ import annotations

import json
import logging
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from specbridge._audit import AuditLog, audit_event, audit_to, auditing
from specbridge._errors import ErrorCode, SpecbridgeError
from specbridge.config import load_config
from specbridge.gateway import Gateway
from tests.support.gateway import write_config
from tests.support.upstream import Upstream

WRITER = """
import sys
from specbridge._audit import audit_to, audit_event
audit_to(sys.argv[1])
for index in range(2000):
    audit_event("tool call", client="c" * 300, index=index)
"""


def test_a_line_is_the_event_its_fields_the_time_and_the_instance(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    audit_to(str(path))
    try:
        audit_event("tool call", client="bot", status=200)
    finally:
        audit_to(None)
    (line,) = [json.loads(text) for text in path.read_text().splitlines()]
    assert line["event"] == "tool call" and line["client"] == "bot" and line["status"] == 200
    assert line["instance"].endswith(f":{os.getpid()}")
    assert line["time"].endswith("Z") and len(line["time"]) == len("2026-05-01T09:30:12.345Z")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert not auditing()


def test_lines_of_two_processes_writing_one_file_at_once_stay_whole(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, str(path)]) for _ in range(2)]
    assert [writer.wait(timeout=120) for writer in writers] == [0, 0]
    lines = [json.loads(text) for text in path.read_text().splitlines()]
    assert len(lines) == 4000
    assert len({line["instance"] for line in lines}) == 2


def test_stderr_is_a_target(capsys: pytest.CaptureFixture[str]) -> None:
    audit_to("stderr")
    try:
        audit_event("admin signed in", admin="alice")
    finally:
        audit_to(None)
    assert json.loads(capsys.readouterr().err)["admin"] == "alice"


def test_a_file_that_cannot_be_opened_is_audit_unwritable_and_changes_nothing(tmp_path: Path) -> None:
    kept = tmp_path / "kept.jsonl"
    audit_to(str(kept))
    try:
        with pytest.raises(SpecbridgeError) as caught:
            audit_to(str(tmp_path / "missing" / "audit.jsonl"))
        assert caught.value.code is ErrorCode.AUDIT_UNWRITABLE
        audit_event("still here")
    finally:
        audit_to(None)
    assert "still here" in kept.read_text()


def test_a_failed_write_is_said_once_in_the_gateways_log(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    log = AuditLog(str(tmp_path / "audit.jsonl"))
    log.close()
    log._fd = os.open(os.devnull, os.O_RDONLY)  # a descriptor that refuses writes, as a full disk does
    with caplog.at_level(logging.ERROR, logger="specbridge.gateway"):
        log.write("tool call", {})
        log.write("tool call", {})
    assert [record.getMessage() for record in caplog.records] == ["audit log not written"]
    log.close()


async def test_a_gateway_opens_its_configs_audit_log_and_a_reload_moves_it(
    tmp_path: Path, upstream: Upstream
) -> None:
    config = write_config(tmp_path, upstream, clients="audit: {path: first.jsonl}\n")
    gateway = Gateway(load_config(config))
    await gateway.start()
    try:
        audit_event("one")
        write_config(tmp_path, upstream, clients="audit: {path: second.jsonl}\n")
        await gateway.reload(load_config(config))
        audit_event("two")
        write_config(tmp_path, upstream, clients="audit: {path: missing/third.jsonl}\n")
        assert await gateway.reload(load_config(config)) == []  # refused: the second stays
        audit_event("three")
    finally:
        await gateway.aclose()
    assert not auditing()
    assert [json.loads(line)["event"] for line in (tmp_path / "first.jsonl").read_text().splitlines()] == [
        "one"
    ]
    second = [json.loads(line)["event"] for line in (tmp_path / "second.jsonl").read_text().splitlines()]
    assert second == ["two", "three"]


async def test_a_gateway_whose_audit_log_cannot_be_written_does_not_start(
    tmp_path: Path, upstream: Upstream
) -> None:
    config = write_config(tmp_path, upstream, clients="audit: {path: missing/audit.jsonl}\n")
    with pytest.raises(SpecbridgeError) as caught:
        await Gateway(load_config(config)).start()
    assert caught.value.code is ErrorCode.AUDIT_UNWRITABLE
