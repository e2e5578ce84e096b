"""`serve --workers N` (cli/_workers.py): N gateways on one port, both protocol eras served, stopped together."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest
from anyio.abc import Process

from tests.support.gateway import http_client, write_config
from tests.support.upstream import Upstream, json_response

SERVING = re.compile(r"serving \S+ at (http://[\d.]+:\d+)/")
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="--workers is Linux's")


@pytest.fixture(autouse=True)
def upstream_routes(upstream: Upstream) -> None:
    upstream.route("/products/p1", json_response({"id": "p1", "name": "Mug"}))


@asynccontextmanager
async def workers(config: Path, count: int) -> AsyncIterator[tuple[Process, str, list[int], list[str]]]:
    """`serve --workers count` on a free port: the process, its base URL, the workers' pids, stderr."""
    command = [sys.executable, "-m", "specbridge", "serve", "--config", str(config), "--transport", "http"]
    command += ["--port", "0", "--workers", str(count)]
    process = await anyio.open_process(command, stderr=subprocess.PIPE, env={**os.environ})
    lines: list[str] = []
    pids: list[int] = []
    bases: set[str] = set()
    ready = anyio.Event()

    async def read() -> None:
        assert process.stderr is not None
        pending = b""
        async for chunk in process.stderr:
            pending += chunk
            *done, pending = pending.split(b"\n")
            for line in done:
                text = line.decode()
                lines.append(text)
                if '"workers started"' in text:
                    pids.extend(json.loads(text)["pids"])
                if found := SERVING.search(text):
                    bases.add(found.group(1))
                    if len([line for line in lines if SERVING.search(line)]) >= count:
                        ready.set()
        ready.set()

    async with process, anyio.create_task_group() as tasks:
        tasks.start_soon(read)
        with anyio.fail_after(60):
            await ready.wait()
        assert len(bases) == 1, lines
        try:
            yield process, bases.pop(), pids, lines
        finally:
            if process.returncode is None:
                process.send_signal(signal.SIGTERM)
            with anyio.fail_after(60):
                await process.wait()
            tasks.cancel_scope.cancel()


async def test_workers_share_one_port_and_serve_both_eras(tmp_path: Path, upstream: Upstream) -> None:
    config = write_config(tmp_path, upstream)
    async with workers(config, 2) as (process, base, pids, _):
        assert len(pids) == 2
        for era in ("2026-07-28", "legacy", "legacy"):
            for _ in range(3):  # new connections each time: the kernel spreads them over the workers
                async with http_client(f"{base}/mcp", mode=era) as client:
                    result = await client.call_tool("getProduct", {"id": "p1"})
                    again = await client.call_tool("getProduct", {"id": "p1"})
                assert result.structured_content == again.structured_content == {"id": "p1", "name": "Mug"}
        process.send_signal(signal.SIGTERM)
        with anyio.fail_after(60):
            assert await process.wait() == 0


async def test_a_worker_that_ends_stops_the_others(tmp_path: Path, upstream: Upstream) -> None:
    config = write_config(tmp_path, upstream)
    async with workers(config, 2) as (process, _, pids, lines):
        os.kill(pids[0], signal.SIGKILL)
        with anyio.fail_after(60):
            status = await process.wait()
    assert status != 0
    assert any('"a worker ended; stopping the others"' in line for line in lines)


async def test_workers_go_with_http_only(tmp_path: Path, upstream: Upstream) -> None:
    config = write_config(tmp_path, upstream)
    done = subprocess.run(
        [sys.executable, "-m", "specbridge", "serve", "--config", str(config), "--workers", "2"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "--workers goes with --transport http" in done.stderr
