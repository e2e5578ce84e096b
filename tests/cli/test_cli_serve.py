"""`specbridge serve` for a newcomer: a local API without a config, and stdio started from a terminal."""

from __future__ import annotations

import contextlib
import json
import os
import pty
import resource
import select
import signal
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from click.testing import CliRunner
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from specbridge.cli import app
from specbridge.cli._app import EXIT_INTERRUPTED, EXIT_UNREADABLE
from specbridge.cli._demo import example_spec_path
from tests.support.gateway import initialize_message, write_config
from tests.support.processes import gateway_process
from tests.support.upstream import Upstream, json_response

SHOP = example_spec_path()
INITIALIZE = initialize_message("pty-test", "1")


@pytest.fixture(autouse=True)
def upstream_routes(upstream: Upstream) -> None:
    """What this module's upstream answers (the upstream itself: tests/conftest.py)."""
    upstream.route("/v1/products", json_response({"items": [{"id": "p1"}], "next": None}))


def test_a_local_base_url_without_allow_is_refused_with_the_allow_to_add(upstream: Upstream) -> None:
    result = CliRunner().invoke(app, ["serve", SHOP, "--base-url", f"{upstream.url}/v1"])
    assert result.exit_code == EXIT_UNREADABLE
    [record] = [json.loads(line) for line in result.stderr.splitlines()]
    assert (record["level"], record["code"]) == ("error", "config-invalid")
    assert f"add --allow {upstream.address}" in record["message"]
    assert upstream.requests == []


async def test_allow_and_a_base_url_on_the_command_line_serve_a_local_api(upstream: Upstream) -> None:
    command = StdioServerParameters(
        command=sys.executable,
        args=[
            "-m",
            "specbridge",
            "serve",
            SHOP,
            "--base-url",
            f"{upstream.url}/v1",
            "--allow",
            upstream.address,
        ],
        env={**os.environ},
    )
    with anyio.fail_after(60):
        async with Client(command) as client:  # type: ignore[arg-type]
            result = await client.call_tool("listProducts", {"limit": 1})
    assert not result.is_error
    assert upstream.requests[-1].path == "/v1/products"


def test_allow_with_a_config_is_a_usage_error(tmp_path: Path) -> None:
    config = tmp_path / "specbridge.yaml"
    config.write_text(f"apis: {{shop: {{spec: {SHOP}}}}}\n")
    result = CliRunner().invoke(app, ["serve", "--config", str(config), "--allow", "127.0.0.1:1"])
    assert result.exit_code == 2
    assert "--allow go with SPEC" in result.output


class Terminal:
    """`specbridge serve` on a pseudo-terminal, as a person starts it; every read has a deadline."""

    def __init__(self, *args: str) -> None:
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: become the command (faulthandler: SIGABRT prints every thread)
            env = {**os.environ, "PYTHONFAULTHANDLER": "1"}
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # that SIGABRT leaves no core file
            os.execve(sys.executable, [sys.executable, "-m", "specbridge", *args], env)
        self.output = b""
        self.closed = False
        self.stuck = ""

    def read_until(self, marker: bytes, seconds: float = 30) -> bool:
        deadline = time.monotonic() + seconds
        while marker not in self.output:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            ready, _, _ = select.select([self.fd], [], [], left)
            if ready:
                try:
                    chunk = os.read(self.fd, 65536)
                except OSError:  # the child closed the terminal: it has ended
                    self.closed = True
                    return marker in self.output
                if not chunk:
                    self.closed = True
                    return marker in self.output
                self.output += chunk
        return True

    def send(self, data: bytes) -> None:
        os.write(self.fd, data)

    def wait_exit(self, seconds: float = 30) -> int | None:
        """The exit status when the child ends within `seconds`; else None, after `self.stuck` took down
        where it was (its signal masks, its threads, and the Python stack of each) and it was killed."""
        self.read_until(b"\0never\0", seconds)  # the rest of the output, until the terminal closes
        if not self.closed:
            self.stuck = self.where_stuck()
            self.close()
            return None
        killed = threading.Event()

        def kill() -> None:
            killed.set()
            os.kill(self.pid, signal.SIGKILL)

        timer = threading.Timer(10, kill)  # the terminal has closed: the process is ending
        timer.start()
        try:
            _, status = os.waitpid(self.pid, 0)
        finally:
            timer.cancel()
        self.pid = 0
        return None if killed.is_set() else os.waitstatus_to_exitcode(status)

    def where_stuck(self) -> str:
        """What a process that did not end shows: /proc's signal state and threads, then the Python
        stacks faulthandler prints on SIGABRT (read for a few seconds at most)."""
        lines: list[str] = []
        with contextlib.suppress(OSError):
            status = Path(f"/proc/{self.pid}/status").read_text().splitlines()
            lines += [line for line in status if line.startswith(("State", "Sig", "Shd"))]
            for task in sorted(Path(f"/proc/{self.pid}/task").iterdir()):
                with contextlib.suppress(OSError):
                    name, wchan = (task / "comm").read_text().strip(), (task / "wchan").read_text()
                    lines.append(f"thread {task.name} {name!r} waits in {wchan or '-'}")
        before = len(self.output)
        with contextlib.suppress(OSError):
            os.kill(self.pid, signal.SIGABRT)
            self.read_until(b"\0never\0", 5)
        return "\n".join([*lines, self.output[before:].decode(errors="replace")])

    def close(self) -> None:
        if self.pid:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
            self.pid = 0
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


@pytest.fixture
def terminal() -> Iterator[Terminal]:
    started = Terminal("serve", SHOP, "--base-url", "https://api.example.com")
    yield started
    started.close()


def test_stdio_in_a_terminal_says_it_speaks_mcp_on_stdin_and_how_to_get_http(terminal: Terminal) -> None:
    assert terminal.read_until(b"--transport http")
    text = terminal.output.decode()
    assert "speaks MCP over stdin" in text
    assert "Ctrl-C stops it" in text


def test_ctrl_c_stops_stdio_served_from_a_terminal_while_it_waits_for_input(terminal: Terminal) -> None:
    # One exchange first, so the gateway is certainly blocked reading the next line when Ctrl-C comes.
    terminal.send(json.dumps(INITIALIZE).encode() + b"\n")
    assert terminal.read_until(b'"serverInfo"'), terminal.output.decode(errors="replace")
    terminal.send(b"\x03")
    status = terminal.wait_exit()
    assert status is not None, f"no exit within 30 s of Ctrl-C; where it was:\n{terminal.stuck}"
    assert status == EXIT_INTERRUPTED, (status, terminal.output.decode(errors="replace")[-2000:])
    assert b"Traceback" not in terminal.output


def _children(pid: int) -> list[str]:
    """The command lines of a process's children."""
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            found.append(Path(f"/proc/{child}/cmdline").read_bytes().replace(b"\0", b" ").decode())
    return found


async def test_serving_http_starts_the_check_worker_with_the_apis(tmp_path: Path, upstream: Upstream) -> None:
    """So that the first large call does not wait for it (docs/calls.md, "Limits on one call")."""
    config = write_config(tmp_path, upstream)
    async with gateway_process(config) as running:
        children = _children(running.process.pid)
    assert [line for line in children if "specbridge.call._check_worker" in line] != []
