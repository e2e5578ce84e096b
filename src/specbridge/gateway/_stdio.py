"""MCP over stdio: one API, the process's stdin and stdout; no key (the client started the process).
SIGTERM drains first (`_drain`): calls already sent finish, waiting ones end with `gateway-stopping`.

It takes over from the stdio front (`_front.Handover`): stdin's first lines are the ones the front did
not answer, the answer to the `initialize` among them is not sent twice, and a document that changed
meanwhile is announced as a changed tool list. With the conversion cache on, the answers the front
may give next time are recorded here (`_answers.Recorder`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, cast

import anyio
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp_types import JSONRPCError, JSONRPCNotification, JSONRPCResponse

from ._answers import Recorder, entry_key, entry_path, read_answers
from ._drain import GRACE, on_sigterm
from ._gateway import Gateway
from ._server import ApiServer
from ._stdin import StdinLines, claimed_stdin
from ._stdio_front import Handover


async def serve_stdio(
    gateway: Gateway,
    api: str,
    *,
    drain_timeout: float | None = None,
    handover: Handover | None = None,
) -> None:
    """Serve `api` over stdin/stdout until the client closes stdin or SIGTERM (drained for up to
    `drain_timeout` seconds, by default the call deadline); reload on change meanwhile."""
    handover = handover or Handover()
    if not gateway.states:
        await gateway.start()
    server = ApiServer(gateway, api)
    recorder = _recorder(gateway, api)
    if recorder is not None:

        async def stop_recording(_api: str) -> None:
            recorder.stop()

        gateway.on_change(stop_recording)
    try:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(gateway.watch)
            tasks.start_soon(gateway.run_webhooks)
            tasks.start_soon(gateway.run_approved)
            # Our own stdin reader: Ctrl-C (a cancellation) must not wait for a blocked read.
            with claimed_stdin(handover.prefix) as lines:

                def end_input() -> None:
                    if lines is not None:
                        lines.close()  # the server loop ends as when the client closes stdin
                    tasks.start_soon(cut_after, GRACE)

                async def cut_after(seconds: float) -> None:
                    await anyio.sleep(seconds)
                    tasks.cancel_scope.cancel()

                tasks.start_soon(on_sigterm, gateway, drain_timeout or gateway.deadline, end_input)
                read = lines if lines is None or recorder is None else _Heard(lines, recorder)
                streams = stdio_server(stdin=cast(Any, read))
                async with streams as (read_stream, write_stream):
                    if handover.digest and gateway.state(api).spec_digest != handover.digest:
                        changed = JSONRPCNotification(
                            jsonrpc="2.0", method="notifications/tools/list_changed"
                        )
                        await write_stream.send(SessionMessage(changed))  # what the front listed is gone
                    await server.server.run(
                        read_stream,
                        cast(Any, _Said(write_stream, handover.drop, recorder)),
                        server.server.create_initialization_options(),
                    )
            tasks.cancel_scope.cancel()
    finally:
        await gateway.aclose()


def _recorder(gateway: Gateway, api: str) -> Recorder | None:
    """Where this start's answers are filed for the front of the next (None: the cache is off)."""
    cache = gateway.conversions
    folder = cache.folder if cache is not None and cache.private() else None
    state = gateway.state(api)
    key = entry_key(gateway.config, api, gateway.stdio_client_id, state.spec_digest)
    if folder is None or key is None:
        return None
    path = entry_path(folder, gateway.config, api, gateway.stdio_client_id)
    refs = state.toolset.document.resolver.file_digests()
    return Recorder(path, key, refs, read_answers(path, key) or {})


class _Heard:
    """stdin's lines, each shown to the recorder on its way to the SDK."""

    def __init__(self, lines: StdinLines, recorder: Recorder) -> None:
        self.lines = lines
        self.recorder = recorder

    def __aiter__(self) -> AsyncIterator[str]:
        return self._heard()

    async def _heard(self) -> AsyncIterator[str]:
        async for line in self.lines:
            self.recorder.saw_request(line)
            yield line


class _Said:
    """The SDK's write stream, less the answer to the `initialize` the front answered already, each
    answer shown to the recorder."""

    def __init__(self, stream: Any, drop: Any, recorder: Recorder | None) -> None:
        self.stream = stream
        self.drop = drop
        self.recorder = recorder

    async def send(self, item: Any) -> None:
        message = getattr(item, "message", None)
        if isinstance(message, JSONRPCResponse | JSONRPCError):
            if self.drop is not None and message.id == self.drop:
                self.drop = None
                return
            if self.recorder is not None and self.recorder.wants(message.id):
                said = message.model_dump(by_alias=True, mode="json", exclude_unset=True)
                member = "result" if isinstance(message, JSONRPCResponse) else "error"
                self.recorder.saw_response(message.id, {member: said.get(member)})
        await self.stream.send(item)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)

    async def __aenter__(self) -> _Said:
        await self.stream.__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stream.__aexit__(*exc)
