"""Stopping on SIGTERM without dropping work (a rolling restart, a scale-down), for both transports.

    drain(gateway, seconds)   one info line; then no new call is taken (`gateway-stopping`, and over
                              HTTP `/healthz` answers 503 `draining`, so a balancer stops sending),
                              calls waiting without having sent anything (a person's approval, the
                              client's user) end at once with `gateway-stopping`, and calls already
                              sent, long ones too, finish and store their outcomes, for up to
                              `seconds` (`--drain-timeout`, by default the call deadline); what still
                              runs then is cancelled, which stores it as outcome unknown (one warning)
    DrainingServer            uvicorn's server, whose first SIGTERM drains before it stops (a second
                              signal, or Ctrl-C, stops at once, as uvicorn does); exit status 0. Once
                              drained, the MCP sessions end (`end_sessions`), so each open GET
                              stream ends as a finished response before the server closes: an
                              instance that restarts answers the client's next request either way
    on_sigterm(...)           the same over stdio: drained, then stdin ends as if the client closed it

The call service does the work (`service.CallService.drain`); this module only wires the signal to it.
"""

from __future__ import annotations

import asyncio  # asyncio: SIGTERM arrives on uvicorn's loop (call_soon_threadsafe), not in a task
import contextlib
import logging
import signal
import sys
from collections.abc import Awaitable, Callable, Iterable, Iterator
from types import FrameType
from typing import Any

import anyio
import uvicorn
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from starlette.types import ASGIApp, Receive, Scope, Send

from .._logging import log_event
from ._gateway import Gateway

GRACE = 2.0  # seconds the transport has, once drained, to write the last answers before it is cut


def draining(gateway: Gateway) -> bool:
    """Whether the gateway is stopping (and so takes no new call)."""
    return gateway.calls.stopping.stopping


async def drain(gateway: Gateway, seconds: float, *, why: str = "SIGTERM") -> None:
    """Stop taking calls and let those already sent finish, for up to `seconds` (see the module)."""
    calls = gateway.calls
    if calls.stopping.stopping:
        return
    log_event(
        "stopping: no new calls; calls already sent finish first",
        signal=why,
        calls=calls.stopping.calls,
        long_calls=calls.long.running,
        drain_timeout=seconds,
    )
    if not await calls.drain(seconds):
        log_event(
            "stopping before every call finished; those still running are stored as outcome unknown",
            level=logging.WARNING,
            calls=calls.stopping.calls,
            long_calls=calls.long.running,
            drain_timeout=seconds,
        )


class DrainingServer(uvicorn.Server):
    """uvicorn's server; its first SIGTERM drains the gateway (`drain`), then stops the server."""

    def __init__(
        self,
        config: uvicorn.Config,
        gateway: Gateway,
        seconds: float,
        after: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        """`after`: what runs once drained, before the server stops (`end_sessions`)."""
        super().__init__(config)
        self._gateway = gateway
        self._seconds = seconds
        self._after = after
        self._loop: asyncio.AbstractEventLoop | None = None
        self._signalled = False
        self._draining: asyncio.Task[None] | None = None

    async def serve(self, sockets: Any = None) -> None:
        self._loop = asyncio.get_running_loop()
        await super().serve(sockets=sockets)

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        if sig != signal.SIGTERM or self._signalled or self._loop is None or not self.started:
            super().handle_exit(sig, frame)
            return
        self._signalled = True
        # A signal handler runs between two bytecodes of the loop's own thread: hand over safely.
        self._loop.call_soon_threadsafe(self._start_drain)

    def _start_drain(self) -> None:
        if self._draining is None and self._loop is not None:
            self._draining = self._loop.create_task(self._drain())

    async def _drain(self) -> None:
        try:
            await drain(self._gateway, self._seconds)
            if self._after is not None:
                await self._after()
        finally:
            self.should_exit = True


class InFlight:
    """The POSTs an MCP endpoint is answering (its answer is written after the call service is done)."""

    def __init__(self) -> None:
        self._count = 0
        self._idle = anyio.Event()
        self._idle.set()

    def counted(self, app: ASGIApp) -> ASGIApp:
        return _Counted(self, app)

    @contextlib.contextmanager
    def one(self) -> Iterator[None]:
        self._count += 1
        if self._count == 1:
            self._idle = anyio.Event()
        try:
            yield
        finally:
            self._count -= 1
            if self._count == 0:
                self._idle.set()

    async def idle(self, seconds: float) -> None:
        with anyio.move_on_after(seconds):
            await self._idle.wait()


class _Counted:
    def __init__(self, posts: InFlight, app: ASGIApp) -> None:
        self._posts = posts
        self._app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("method") != "POST":  # a GET stream lasts as long as its session
            await self._app(scope, receive, send)
            return
        with self._posts.one():
            await self._app(scope, receive, send)


async def end_sessions(posts: InFlight, managers: Iterable[StreamableHTTPSessionManager]) -> None:
    """Once the POSTs being answered are (for up to `GRACE`), end every MCP session of these managers
    (the SDK's `terminate`), so a GET stream still open ends as a complete response rather than being
    cut when the server closes."""
    await posts.idle(GRACE)
    for manager in managers:
        transports = getattr(manager, "_server_instances", {})  # not public in SDK 2.3
        for transport in list(transports.values()):
            with anyio.CancelScope(shield=True):
                await transport.terminate()


async def on_sigterm(gateway: Gateway, seconds: float, end_input: Callable[[], None]) -> None:
    """stdio: at SIGTERM, drain, then end the input (the server loop ends as when the client closes
    stdin, its last answers written); cut after `GRACE` if it does not end by itself."""
    if sys.platform == "win32":  # no SIGTERM to receive there
        await anyio.sleep_forever()
    with anyio.open_signal_receiver(signal.SIGTERM) as signals:
        async for _ in signals:
            break
    await drain(gateway, seconds)
    end_input()
