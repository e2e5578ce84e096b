"""The demo's client snippets: one per client, each in that client's own config shape."""

from __future__ import annotations

import json
import socket
import sys
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
