"""The stdio front (gateway/_stdio_front.py) and the answers it gives again (gateway/_answers.py): a second
start answers `initialize` and the listings before the gateway loads, exactly as the gateway did, and
hands everything else over in order."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from anyio.abc import Process

from tests.support.gateway import EXTRA_OPERATION, SPEC, initialize_message, write_config
from tests.support.upstream import Upstream, json_response

INITIALIZE = initialize_message("t", "1")
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
LIST = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
FRONT_SAID = b'"stdio front answered"'


@pytest.fixture(autouse=True)
def upstream_routes(upstream: Upstream) -> None:
    upstream.route("/products/p1", json_response({"id": "p1", "name": "Mug"}))


class Stdio:
    """A `specbridge serve` over stdio, spoken to line by line."""

    def __init__(self, process: Process) -> None:
        self.process = process
        self.buffer = b""

    async def send(self, *messages: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        await self.process.stdin.send(b"".join(json.dumps(m).encode() + b"\n" for m in messages))

    async def receive(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        with anyio.fail_after(60):
            while b"\n" not in self.buffer:
                self.buffer += await self.process.stdout.receive()
        line, self.buffer = self.buffer.split(b"\n", 1)
        answer: dict[str, Any] = json.loads(line)
        return answer


async def session(
    config: Path, *exchanges: dict[str, Any], cache: Path | None
) -> tuple[list[dict[str, Any]], bytes]:
    """Each message sent in turn; a request's answer read before the next. Returns the answers and stderr."""
    command = [sys.executable, "-m", "specbridge", "serve", "--config", str(config)]
    command += ["--cache-dir", str(cache)] if cache is not None else []
    process = await anyio.open_process(command, stderr=subprocess.PIPE, env={**os.environ})
    answers = []
    async with process:
        stdio = Stdio(process)
        for message in exchanges:
            await stdio.send(message)
            if "id" in message:
                answers.append(await stdio.receive())
        assert process.stdin is not None
        await process.stdin.aclose()
        with anyio.fail_after(60):
            await process.wait()
        assert process.stderr is not None
        errors = b""
        async for chunk in process.stderr:
            errors += chunk
    return answers, errors


async def test_a_second_start_answers_initialize_and_tools_list_as_the_gateway_did(
    tmp_path: Path, upstream: Upstream
) -> None:
    config = write_config(tmp_path, upstream)
    first, first_log = await session(config, INITIALIZE, INITIALIZED, LIST, cache=tmp_path / "cache")
    again, again_log = await session(config, INITIALIZE, INITIALIZED, LIST, cache=tmp_path / "cache")
    assert FRONT_SAID not in first_log
    assert FRONT_SAID in again_log
    assert again == first
    assert [tool["name"] for tool in again[1]["result"]["tools"]][:2] == ["getProduct", "listNotes"]


async def test_what_the_front_cannot_answer_reaches_the_gateway_in_order(
    tmp_path: Path, upstream: Upstream
) -> None:
    config = write_config(tmp_path, upstream)
    call = {
        "jsonrpc": "2.0",
        "id": 3,
        "method": "tools/call",
        "params": {"name": "getProduct", "arguments": {"id": "p1"}},
    }
    ping = {"jsonrpc": "2.0", "id": 4, "method": "ping"}
    await session(config, INITIALIZE, INITIALIZED, LIST, ping, cache=tmp_path / "cache")
    answers, log = await session(
        config, INITIALIZE, INITIALIZED, LIST, call, ping, LIST, cache=tmp_path / "cache"
    )
    assert FRONT_SAID in log
    assert [answer["id"] for answer in answers] == [1, 2, 3, 4, 2]
    assert answers[2]["result"]["structuredContent"] == {"id": "p1", "name": "Mug"}
    assert answers[3]["result"] == {} and answers[4] == answers[1]


async def test_a_changed_document_is_answered_by_the_gateway(tmp_path: Path, upstream: Upstream) -> None:
    config = write_config(tmp_path, upstream)
    await session(config, INITIALIZE, INITIALIZED, LIST, cache=tmp_path / "cache")
    (tmp_path / "shop.yaml").write_text(SPEC + EXTRA_OPERATION, encoding="utf-8")
    answers, log = await session(config, INITIALIZE, INITIALIZED, LIST, cache=tmp_path / "cache")
    assert FRONT_SAID not in log
    assert "extraThing" in [tool["name"] for tool in answers[1]["result"]["tools"]]


async def test_a_changed_config_is_answered_by_the_gateway(tmp_path: Path, upstream: Upstream) -> None:
    config = write_config(tmp_path, upstream)
    await session(config, INITIALIZE, INITIALIZED, LIST, cache=tmp_path / "cache")
    config = write_config(tmp_path, upstream, tools="tools: {listNotes: {disabled: true}}\n")
    answers, log = await session(config, INITIALIZE, INITIALIZED, LIST, cache=tmp_path / "cache")
    assert FRONT_SAID not in log
    assert "listNotes" not in [tool["name"] for tool in answers[1]["result"]["tools"]]


async def test_another_protocol_version_is_answered_by_the_gateway(
    tmp_path: Path, upstream: Upstream
) -> None:
    config = write_config(tmp_path, upstream)
    await session(config, INITIALIZE, INITIALIZED, LIST, cache=tmp_path / "cache")
    newer = {**INITIALIZE, "params": {**INITIALIZE["params"], "protocolVersion": "2025-11-25"}}  # type: ignore[dict-item]
    answers, log = await session(config, newer, INITIALIZED, LIST, cache=tmp_path / "cache")
    assert FRONT_SAID not in log
    assert answers[0]["result"]["protocolVersion"] == "2025-11-25"
    again, log = await session(config, newer, INITIALIZED, LIST, cache=tmp_path / "cache")
    assert FRONT_SAID in log and again == answers


async def test_no_cache_means_no_front(tmp_path: Path, upstream: Upstream) -> None:
    config = write_config(tmp_path, upstream)
    config.write_text(config.read_text() + 'cache: ""\n')
    for _ in range(2):
        answers, log = await session(config, INITIALIZE, INITIALIZED, LIST, cache=None)
        assert FRONT_SAID not in log and len(answers) == 2
