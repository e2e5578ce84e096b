"""The stdio front's own first answers (gateway/_first_answers.py): with nothing recorded, an API in search
mode is converted before the gateway loads and `initialize` and `tools/list` are answered from the
conversion, exactly as the gateway answers them; the gateway then takes the conversion over."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from specbridge.config import load_config
from specbridge.gateway._first_answers import HANDSHAKE_VERSIONS, first_answers
from specbridge.tools import ConversionCache
from tests.support.gateway import initialize_message, write_config
from tests.support.upstream import Upstream, json_response

INITIALIZE = initialize_message("t", "1")
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
LIST = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
CALL = {
    "jsonrpc": "2.0",
    "id": 3,
    "method": "tools/call",
    "params": {"name": "call_tool", "arguments": {"name": "getProduct", "arguments": {"id": "p1"}}},
}
FRONT_SAID = b'"stdio front answered"'


@pytest.fixture(autouse=True)
def upstream_routes(upstream: Upstream) -> None:
    upstream.route("/products/p1", json_response({"id": "p1", "name": "Mug"}))


async def session(
    config: Path, *messages: dict[str, Any], options: tuple[str, ...] = (), no_cache: bool = True
) -> tuple[list[Any], bytes]:
    """`specbridge serve --config CONFIG [--no-cache]` over stdio, each message sent in turn and each
    request's answer read before the next. Returns the answers and stderr."""
    command = [sys.executable, "-m", "specbridge", "serve", "--config", str(config), *options]
    command += ["--no-cache"] if no_cache else []
    process = await anyio.open_process(command, stderr=subprocess.PIPE, env={**os.environ})
    answers: list[Any] = []
    buffer = b""
    async with process:
        assert process.stdin is not None and process.stdout is not None and process.stderr is not None
        for message in messages:
            await process.stdin.send(json.dumps(message).encode() + b"\n")
            if "id" not in message:
                continue
            with anyio.fail_after(60):
                while b"\n" not in buffer:
                    buffer += await process.stdout.receive()
            line, buffer = buffer.split(b"\n", 1)
            answers.append(json.loads(line))
        await process.stdin.aclose()
        with anyio.fail_after(60):
            await process.wait()
        errors = b""
        async for chunk in process.stderr:
            errors += chunk
    return answers, errors


def search_config(tmp_path: Path, upstream: Upstream, extra: str = "search: on\n") -> Path:
    return write_config(tmp_path, upstream, extra=extra)


async def test_search_mode_is_answered_before_the_gateway_loads_as_the_gateway_answers(
    tmp_path: Path, upstream: Upstream
) -> None:
    config = search_config(tmp_path, upstream)
    front, front_log = await session(config, INITIALIZE, INITIALIZED, LIST, CALL)
    # --strict-start: no answer is made before the start's checks, so the gateway gives them all
    gateway, gateway_log = await session(
        config, INITIALIZE, INITIALIZED, LIST, CALL, options=("--strict-start",)
    )
    assert FRONT_SAID in front_log and FRONT_SAID not in gateway_log
    assert front == gateway
    assert [tool["name"] for tool in front[1]["result"]["tools"]] == ["search_tools", "call_tool"]
    assert front[2]["result"]["structuredContent"] == {"id": "p1", "name": "Mug"}  # the gateway's call


async def test_what_the_front_made_is_recorded_and_said_again_by_the_next_start(
    tmp_path: Path, upstream: Upstream
) -> None:
    config = search_config(tmp_path, upstream)
    cache = ("--cache-dir", str(tmp_path / "cache"))
    first, first_log = await session(config, INITIALIZE, INITIALIZED, LIST, options=cache, no_cache=False)
    again, again_log = await session(config, INITIALIZE, INITIALIZED, LIST, options=cache, no_cache=False)
    assert FRONT_SAID in first_log and FRONT_SAID in again_log and again == first
    assert len(list((tmp_path / "cache").glob("*.answers.json"))) == 1


async def test_every_handshake_version_is_answered_as_asked(tmp_path: Path, upstream: Upstream) -> None:
    config = search_config(tmp_path, upstream)
    for version in ("2024-11-05", "2025-11-25"):
        initialize = {**INITIALIZE, "params": {**INITIALIZE["params"], "protocolVersion": version}}  # type: ignore[dict-item]
        answers, log = await session(config, initialize, INITIALIZED, LIST)
        assert FRONT_SAID in log and answers[0]["result"]["protocolVersion"] == version


def test_the_front_knows_the_sdks_handshake_versions() -> None:
    assert HANDSHAKE_VERSIONS == HANDSHAKE_PROTOCOL_VERSIONS


@pytest.mark.parametrize(
    ("extra", "client"),
    [
        ("search: off\n", None),  # every tool listed: the gateway's listing
        ("search: auto\n", None),  # a small document: not in search mode
        ("search: on\ncalls: {long: true}\n", None),  # get_call_result is listed too
        ("search: on\ncode_mode: on\n", None),
        ("search: on\n", "desk"),  # a --client: its rules and bindings
    ],
)
def test_nothing_is_made_where_the_listing_depends_on_more_than_the_document(
    tmp_path: Path, upstream: Upstream, extra: str, client: str | None
) -> None:
    config = load_config(str(write_config(tmp_path, upstream, extra=extra)))
    assert first_answers(config, "shop", client, ConversionCache(None)) is None


def test_only_initialize_of_a_handshake_version_and_the_first_page_are_answered(
    tmp_path: Path, upstream: Upstream
) -> None:
    config = load_config(str(search_config(tmp_path, upstream)))
    made = first_answers(config, "shop", None, ConversionCache(None))
    assert made is not None
    answer = made.answer
    assert answer("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}}) is not None
    assert answer("initialize", {"protocolVersion": "2026-07-28", "capabilities": {}}) is None
    assert answer("initialize", {"protocolVersion": "1999-01-01", "capabilities": {}}) is None
    assert answer("tools/list", None) is not None
    assert answer("tools/list", {"cursor": "x"}) is None
    assert answer("tools/call", {"name": "search_tools"}) is None


def test_the_conversion_is_handed_to_the_gateway_once_and_kept_on_disk_then(
    tmp_path: Path, upstream: Upstream
) -> None:
    config = load_config(str(search_config(tmp_path, upstream)))
    api = config.apis["shop"]
    cache = ConversionCache(tmp_path / "cache")
    made = cache.convert(api.spec, api.convert_options(), keep=True)
    assert not (tmp_path / "cache").exists()  # the front answers before the entry is written
    handed = cache.convert(api.spec, api.convert_options())
    assert handed == made  # the same conversion, made compact as it is written (tools/_compact.py)
    assert len(list((tmp_path / "cache").glob("*.pickle"))) == 1
    again = cache.convert(api.spec, api.convert_options())  # read from the entry
    assert again == made and again is not handed
