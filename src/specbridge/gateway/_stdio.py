"""MCP over stdio: one API, the process's stdin and stdout; no key (the client started the process).
SIGTERM drains first (`_drain`): calls already sent finish, waiting ones end with `gateway-stopping`."""

from __future__ import annotations

from typing import Any, cast

import anyio
from mcp.server.stdio import stdio_server

from ._drain import GRACE, on_sigterm
from ._gateway import Gateway
from ._server import ApiServer
from ._stdin import claimed_stdin


async def serve_stdio(gateway: Gateway, api: str, *, drain_timeout: float | None = None) -> None:
    """Serve `api` over stdin/stdout until the client closes stdin or SIGTERM (drained for up to
    `drain_timeout` seconds, by default the call deadline); reload on change meanwhile."""
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

                def end_input() -> None:
                    if lines is not None:
                        lines.close()  # the server loop ends as when the client closes stdin
                    tasks.start_soon(cut_after, GRACE)

                async def cut_after(seconds: float) -> None:
                    await anyio.sleep(seconds)
                    tasks.cancel_scope.cancel()

                tasks.start_soon(on_sigterm, gateway, drain_timeout or gateway.deadline, end_input)
                streams = stdio_server(stdin=cast(Any, lines))
                async with streams as (read_stream, write_stream):
                    await server.server.run(
                        read_stream, write_stream, server.server.create_initialization_options()
                    )
            tasks.cancel_scope.cancel()
    finally:
        await gateway.aclose()
