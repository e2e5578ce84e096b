"""The demo's client snippets: one per client, each in that client's own config shape."""

from __future__ import annotations

import json
import queue
import shlex
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from specbridge.cli import app
from specbridge.cli._app import EXIT_CANNOT_START
from specbridge.cli._demo import client_snippets

URL = "http://127.0.0.1:8765/mcp"


def sections(text: str) -> dict[str, str]:
    """The last unindented line before a block -> the block (its lines without their indent)."""
    found: dict[str, list[str]] = {}
    heading = ""
    for line in text.splitlines():
        if line.startswith("  "):
            found.setdefault(heading, []).append(line[2:])
        elif line.strip():
            heading = line
    return {key: "\n".join(value) for key, value in found.items()}


def config_under(text: str, heading_start: str) -> Any:
    [block] = [body for heading, body in sections(text).items() if heading.startswith(heading_start)]
    return json.loads(block)


def test_vs_code_gets_a_servers_entry_with_type_http() -> None:
    config = config_under(client_snippets(URL), "VS Code")
    assert config == {"servers": {"specbridge-shop": {"type": "http", "url": URL}}}


def test_cursor_gets_an_mcp_servers_entry_with_a_url() -> None:
    config = config_under(client_snippets(URL), "Cursor")
    assert config == {"mcpServers": {"specbridge-shop": {"url": URL}}}


def test_claude_code_gets_the_add_command_for_http() -> None:
    body = sections(client_snippets(URL))["Claude Code:"]
    assert body == f"claude mcp add --transport http specbridge-shop {URL}"


def test_desktop_clients_get_a_stdio_command_that_runs_this_specbridge() -> None:
    text = client_snippets(URL)
    [entry] = config_under(text, "for your own API")["mcpServers"].values()
    assert entry["command"] == sys.executable
    assert entry["args"][:3] == ["-m", "specbridge", "serve"]
    assert "url" not in entry and "type" not in entry


def test_a_demo_port_taken_by_something_else_is_a_coded_error_when_asked_for() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        result = CliRunner().invoke(app, ["demo", "--once", "--port", str(port)])
    assert result.exit_code == EXIT_CANNOT_START
    assert result.stderr.startswith("error [serve-port-in-use]: ")


def test_a_person_answers_the_demo_by_the_command_it_prints(tmp_path: Path) -> None:
    """Without --once the demo waits; the printed `approvals approve` command, run as printed in another
    process, is the answer, and the agent's same call then gets the refund."""
    with (
        (tmp_path / "stderr").open("w") as stderr,
        subprocess.Popen(
            [sys.executable, "-m", "specbridge", "demo", "--port", "0", "--folder", str(tmp_path / "demo")],
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
        ) as demo,
    ):
        lines = Lines(demo)
        try:
            answer_as_printed(lines, tmp_path / "demo")
        except (AssertionError, queue.Empty) as failed:  # say what the demo said, and on stderr
            stderr.flush()
            said = (tmp_path / "stderr").read_text()[-4000:]
            raise AssertionError(
                f"{failed!r}; the demo printed:\n{lines.seen}\nand on stderr:\n{said}"
            ) from failed
        finally:
            demo.send_signal(signal.SIGINT)
            demo.wait(timeout=30)
    assert "admin key" in lines.seen
    assert (tmp_path / "demo" / "admin-key.txt").read_text().strip() in lines.seen


def answer_as_printed(lines: Lines, folder: Path) -> None:
    approve = lines.until(lambda line: " approvals approve " in line).strip()
    assert (folder / "specbridge.yaml").is_file() and (folder / "admin-key.txt").is_file()
    assert "Waiting for the answer" in lines.until(lambda line: line.startswith("Waiting"))
    answered = subprocess.run(shlex.split(approve), capture_output=True, text=True, timeout=60, check=False)
    assert answered.returncode == 0, answered.stderr
    assert answered.stdout.startswith("approved ")
    assert lines.until(lambda line: line.startswith("approved by cli:"))
    assert '"status":"refunded"' in lines.until(lambda line: "refunded" in line)


class Lines:
    """A process's stdout read line by line on a thread, each wait bounded."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.queue: queue.Queue[str] = queue.Queue()
        self.seen = ""
        assert process.stdout is not None
        stream = process.stdout
        threading.Thread(target=lambda: [self.queue.put(line) for line in stream], daemon=True).start()

    def until(self, wanted: Callable[[str], bool], seconds: float = 120) -> str:
        deadline = time.monotonic() + seconds
        while True:
            line = self.queue.get(timeout=max(0.1, deadline - time.monotonic()))
            self.seen += line
            if wanted(line):
                return line
