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
    argv = [*(command or [sys.executable, "-m", "specbridge"]), "serve", "--config", str(config)]
    process = await anyio.open_process(
        [*argv, "--transport", "http", "--port", "0"],
        env={**os.environ, **(env or {})},
        stdin=None,
        stdout=None,
    )
    running = GatewayProcess(process)
    listening = anyio.Event()

    async def read_stderr() -> None:
        assert process.stderr is not None
        pending = b""
        async for chunk in process.stderr:
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
            tasks.start_soon(read_stderr)
            with anyio.fail_after(60):
                await listening.wait()
            assert running.base, "the gateway did not start:\n" + "\n".join(running.stderr)
            try:
                yield running
            finally:
                running.kill()
                with anyio.fail_after(30), anyio.CancelScope(shield=True):
                    await process.wait()
    finally:
        with contextlib.suppress(ProcessLookupError):
            running.kill()


async def admin_post(base: str, key: str, path: str, body: object = None) -> httpx.Response:
    async with httpx.AsyncClient(base_url=base, timeout=30) as client:
        return await client.post(path, json=body, headers={"Authorization": f"Bearer {key}"})
