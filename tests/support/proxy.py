"""A TCP proxy on loopback in front of a real server (the machine's PostgreSQL or Redis), that a test can
freeze (it keeps every connection open and forwards nothing: a store that hangs), take down (nothing
listens, open connections are reset: a store that is gone) and bring back up on the same port, while
it counts the connections it accepted. The server behind it is never touched.

    with Proxy("127.0.0.1", 6379) as proxy:          # its own thread and loop
        url = f"redis://{proxy.address}/0"
        proxy.freeze() ... proxy.thaw() ... proxy.down() ... proxy.up()
        proxy.accepted, proxy.open, proxy.wait_open(at_most=0, timeout=10)
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
from typing import Any, Self


class Proxy:
    def __init__(self, host: str, port: int) -> None:
        self.target = (host, port)
        self.port = 0
        self.accepted = 0  # connections accepted since start
        self.open = 0  # connections open now
        self._flowing: asyncio.Event | None = None  # made on the proxy's loop; cleared while frozen
        self._changed = threading.Condition()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._server: asyncio.Server | None = None
        self._links: set[asyncio.StreamWriter] = set()
        self._ready = threading.Event()

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def __enter__(self) -> Self:
        self._thread = threading.Thread(target=self._run, name="proxy", daemon=True)
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("the proxy did not start")
        return self

    def __exit__(self, *exc: object) -> None:
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        if self._thread is not None:
            self._thread.join(10)

    # -- what a test does -------------------------------------------------------------------------------

    def freeze(self) -> None:
        """Forward nothing from now on (connections stay open; new ones are accepted and hang)."""
        self._call(self._flow(False))

    def thaw(self) -> None:
        self._call(self._flow(True))

    def down(self) -> None:
        """Stop listening and reset every open connection (waits until done)."""
        self._call(self._down())

    def up(self) -> None:
        """Listen again on the same port (waits until it does)."""
        self._call(self._listen())

    def wait_open(self, *, at_most: int, timeout: float) -> bool:
        """Wait (in the calling thread) until at most `at_most` connections are open; False on timeout."""
        with self._changed:
            return self._changed.wait_for(lambda: self.open <= at_most, timeout)

    # -- the proxy's own thread ---------------------------------------------------------------------------

    def _call(self, work: Any) -> None:
        assert self._loop is not None
        asyncio.run_coroutine_threadsafe(work, self._loop).result(10)

    def _run(self) -> None:
        self._loop = asyncio.new_event_loop()
        self._loop.run_until_complete(self._serve())
        self._loop.close()

    async def _serve(self) -> None:
        self._stop = asyncio.Event()
        self._flowing = asyncio.Event()
        self._flowing.set()
        await self._listen()
        self._ready.set()
        await self._stop.wait()
        await self._down()

    async def _listen(self) -> None:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        self._server = await asyncio.start_server(self._connection, sock=listener)
        self.port = listener.getsockname()[1]

    async def _flow(self, on: bool) -> None:
        assert self._flowing is not None
        if on:
            self._flowing.set()
        else:
            self._flowing.clear()

    async def _down(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None
        for writer in list(self._links):
            with contextlib.suppress(Exception):
                writer.transport.abort()

    def _count(self, change: int) -> None:
        with self._changed:
            self.open += change
            if change > 0:
                self.accepted += change
            self._changed.notify_all()

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._count(1)
        self._links.add(writer)
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(*self.target)
        except OSError:
            self._links.discard(writer)
            writer.transport.abort()
            self._count(-1)
            return
        self._links.add(upstream_writer)
        try:
            await asyncio.gather(self._pipe(reader, upstream_writer), self._pipe(upstream_reader, writer))
        finally:
            for one in (writer, upstream_writer):
                self._links.discard(one)
                one.transport.abort()
            self._count(-1)

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            assert self._flowing is not None
            while data := await reader.read(65536):
                await self._flowing.wait()  # frozen: hold the bytes, the far side sees a silent peer
                writer.write(data)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            writer.transport.abort()  # one side closed: close both, as a dead peer would
