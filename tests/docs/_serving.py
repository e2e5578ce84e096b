"""A documented `specbridge serve` as a process of its own, seen as its clients see it: over stdio
through the official MCP client, over HTTP through its log's `serving … at URL` lines and `/healthz`.
Every wait is bounded; the process is stopped with Ctrl-C's signal, as a person stops it."""

from __future__ import annotations

import contextlib
import json
import signal
from dataclasses import dataclass, field
from typing import Any

import anyio
import httpx
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

from ._workspace import Workspace, environ

BOUND = 60  # seconds any one step may take on a busy machine


@dataclass
class Served:
    """What a client saw of one `serve`."""

    tools: list[str] = field(default_factory=list)  # stdio: tools/list's names
    urls: list[str] = field(default_factory=list)  # http: the `serving … at URL` lines
    health: Any = None  # http: GET /healthz
    exit_code: int | None = None  # http: after SIGINT; either: when it ended before serving
    log: list[str] = field(default_factory=list)  # stderr lines


async def over_stdio(argv: list[str], workspace: Workspace) -> Served:
    """`argv` as an MCP client starts it (Claude Desktop, Cursor): initialize, then tools/list."""
    served = Served()
    errlog = workspace.folder / "serve-stderr.log"
    parameters = StdioServerParameters(
        command=argv[0], args=argv[1:], env=environ(workspace), cwd=str(workspace.folder)
    )
    try:
        with anyio.fail_after(BOUND), errlog.open("w") as stderr:
            async with Client(stdio_client(parameters, errlog=stderr)) as client:
                listed = await client.list_tools()
                served.tools = [tool.name for tool in listed.tools]
    except Exception as error:  # the process ended or never answered: the check says what it logged
        served.log.append(f"the MCP client failed: {type(error).__name__}: {error}")
    served.log += errlog.read_text(encoding="utf-8", errors="replace").splitlines()
    return served


async def over_http(argv: list[str], workspace: Workspace) -> Served:
    """`argv` (a `serve --transport http`) until it says where it serves; then /healthz; then Ctrl-C."""
    served = Served()
    process = await anyio.open_process(argv, env=environ(workspace), cwd=workspace.folder, stdin=None)
    try:
        assert process.stderr is not None
        pending = b""
        with anyio.fail_after(BOUND):
            async for chunk in process.stderr:
                pending += chunk
                *lines, pending = pending.split(b"\n")
                for line in lines:
                    served.log.append(line.decode("utf-8", "replace"))
                    url = _serving_url(served.log[-1])
                    if url and url not in served.urls:  # each of `--workers N` says it too
                        served.urls.append(url)
                if served.urls and (served.health is None):
                    served.health = await _health(served.urls[0])
                if served.urls and len(served.urls) >= len(dict(served.health or {}).get("apis", {})):
                    break
        if not served.urls:
            served.exit_code = await process.wait()
            return served
        process.send_signal(signal.SIGINT)
        with anyio.fail_after(BOUND):
            async for chunk in process.stderr:
                served.log += chunk.decode("utf-8", "replace").splitlines()
            served.exit_code = await process.wait()
    finally:
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        with anyio.fail_after(BOUND), anyio.CancelScope(shield=True):
            await process.wait()
    return served


def _serving_url(line: str) -> str:
    try:
        record = json.loads(line)
    except ValueError:
        return ""
    event = str(record.get("event", "")) if isinstance(record, dict) else ""
    return str(record.get("url", "")) if event.startswith("serving ") else ""


async def _health(url: str) -> Any:
    base = url.split("/", 3)[:3]
    async with httpx.AsyncClient(timeout=BOUND) as client:
        answer = await client.get("/".join(base) + "/healthz")
    try:
        return answer.json()
    except ValueError:
        return {"status": answer.status_code, "text": answer.text[:200]}
