"""`specbridge serve --transport http` as a real process, for tests that kill it or run two at once."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import anyio
import httpx
from anyio.abc import Process

SERVING = re.compile(r"serving \S+ at (http://[\d.]+:\d+)/")


@dataclass
class GatewayProcess:
    process: Process
    base: str = ""
    stderr: list[str] = field(default_factory=list)

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs, as when the machine or the OOM killer stops it."""
        if self.process.returncode is None:
            self.process.send_signal(signal.SIGKILL)


@contextlib.asynccontextmanager
async def gateway_process(
    config: Path, *, command: list[str] | None = None, env: dict[str, str] | None = None
) -> AsyncIterator[GatewayProcess]:
    """The gateway serving `config` on 127.0.0.1 (a free port) in its own process; yields once it
    listens (its `serving … at URL` line), kills it at the end. Its stderr (JSON log lines) is kept.
    `command` runs another specbridge (default: this Python's); `env` is added to the environment."""
    async with gateway_processes(config, 1, command=command, env=env) as (running,):
        yield running


@contextlib.asynccontextmanager
async def gateway_processes(
    config: Path, count: int, *, command: list[str] | None = None, env: dict[str, str] | None = None
) -> AsyncIterator[tuple[GatewayProcess, ...]]:
    """`count` gateways on one config, started at the same time (as a deployment's replicas start: each
    start is mostly imports, so side by side they take about as long as one); as `gateway_process`."""
    argv = [*(command or [sys.executable, "-m", "specbridge"]), "serve", "--config", str(config)]
    started: list[GatewayProcess] = []

    async def read_stderr(running: GatewayProcess, listening: anyio.Event) -> None:
        stream = running.process.stderr
        assert stream is not None
        pending = b""
        async for chunk in stream:
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                text = line.decode("utf-8", "replace")
                running.stderr.append(text)
                found = SERVING.search(text)
                if found and not running.base:
                    running.base = found.group(1)
                    listening.set()
        listening.set()  # the process ended before listening: the test sees no base URL

    try:
        async with anyio.create_task_group() as tasks:
            listening: list[anyio.Event] = []
            for _ in range(count):
                process = await anyio.open_process(
                    [*argv, "--transport", "http", "--port", "0"],
                    env={**os.environ, **(env or {})},
                    stdin=None,
                    stdout=None,
                )
                started.append(GatewayProcess(process))
                listening.append(anyio.Event())
                tasks.start_soon(read_stderr, started[-1], listening[-1])
            with anyio.fail_after(60):
                for event in listening:
                    await event.wait()
            for running in started:
                assert running.base, "the gateway did not start:\n" + "\n".join(running.stderr)
            try:
                yield tuple(started)
            finally:
                for running in started:
                    running.kill()
                with anyio.fail_after(30), anyio.CancelScope(shield=True):
                    for running in started:
                        await running.process.wait()
    finally:
        for running in started:
            with contextlib.suppress(ProcessLookupError):
                running.kill()


async def admin_post(base: str, key: str, path: str, body: object = None) -> httpx.Response:
    async with httpx.AsyncClient(base_url=base, timeout=30) as client:
        return await client.post(path, json=body, headers={"Authorization": f"Bearer {key}"})
