"""MCP over stdio: one API, the process's stdin and stdout; no key (the client started the process)."""

from __future__ import annotations

import anyio
from mcp.server.stdio import stdio_server

from ._gateway import Gateway
from ._server import ApiServer


async def serve_stdio(gateway: Gateway, api: str) -> None:
    """Serve `api` over stdin/stdout until the client closes stdin; reload on change meanwhile."""
    if not gateway.states:
        await gateway.start()
    server = ApiServer(gateway, api)
    try:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(gateway.watch)
            async with stdio_server() as (read_stream, write_stream):
                await server.server.run(
                    read_stream, write_stream, server.server.create_initialization_options()
                )
            tasks.cancel_scope.cancel()
    finally:
        await gateway.aclose()
