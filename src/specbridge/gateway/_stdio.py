"""MCP over stdio: one API, the process's stdin and stdout; no key (the client started the process)."""

from __future__ import annotations

from typing import Any, cast

import anyio
from mcp.server.stdio import stdio_server

from ._gateway import Gateway
from ._server import ApiServer
from ._stdin import claimed_stdin


async def serve_stdio(gateway: Gateway, api: str) -> None:
    """Serve `api` over stdin/stdout until the client closes stdin; reload on change meanwhile."""
    if not gateway.states:
        await gateway.start()
    server = ApiServer(gateway, api)
    try:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(gateway.watch)
            tasks.start_soon(gateway.run_webhooks)
            tasks.start_soon(gateway.run_approved)
            # Our own stdin reader: Ctrl-C (a cancellation) must not wait for a blocked read.
            with claimed_stdin() as lines:
                streams = stdio_server(stdin=cast(Any, lines))
                async with streams as (read_stream, write_stream):
                    await server.server.run(
                        read_stream, write_stream, server.server.create_initialization_options()
                    )
            tasks.cancel_scope.cancel()
    finally:
        await gateway.aclose()
