"""One stdio start, timed as a whole process: spawn `specbridge serve SPEC`, send `initialize` and
`tools/list`, and end (killing the server) at the list's first page.

    /usr/bin/time -v .venv/bin/python bench/first_list.py [PYTHON] SPEC [serve options...]

PYTHON runs the server (default: this one), so two checkouts can be timed in turn, A B A B, by ratio;
the process's time and peak memory (of its children, which it waits for) are the start's. No MCP
client library: the client's own import and checks would be most of the figure.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "1"},
    },
}


def main() -> None:
    arguments = sys.argv[1:]
    python = (
        arguments.pop(0) if arguments and Path(arguments[0]).name.startswith("python") else sys.executable
    )
    spec, *options = arguments
    server = subprocess.Popen(
        [python, "-m", "specbridge", "serve", spec, "--base-url", "https://api.github.com", *options],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert server.stdin is not None and server.stdout is not None

    def send(message: dict[str, object]) -> None:
        assert server.stdin is not None
        server.stdin.write(json.dumps(message).encode() + b"\n")
        server.stdin.flush()

    send(INITIALIZE)
    server.stdout.readline()
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    answer = server.stdout.readline()
    server.kill()
    server.wait()
    if b'"tools"' not in answer:
        sys.exit(f"no tools/list answer: {answer[:200]!r}")


if __name__ == "__main__":
    main()
