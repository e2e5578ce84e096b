"""Lines of stdin for the stdio transport, read so that Ctrl-C can always stop the gateway.

The SDK reads stdin in an AnyIO worker thread that a cancellation waits for, and a process whose
stdin is a terminal that nobody types into never gets a line: Ctrl-C then hangs the process. Here a
daemon thread does the blocking reads (raw `os.read`, no buffered object whose lock it could hold at
exit) and hands the bytes to the event loop, so cancelling the reader never waits for the thread.
"""

from __future__ import annotations

import codecs
import contextlib
import io
import math
import os
import sys
import threading
from collections.abc import AsyncIterator, Iterator

import anyio
import anyio.from_thread
import anyio.lowlevel
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

_CHUNK = 65536


@contextlib.contextmanager
def claimed_stdin(prefix: bytes = b"") -> Iterator[StdinLines | None]:
    """stdin's lines for the transport, after `prefix` (what the stdio front read and did not answer,
    `_front`); meanwhile fd 0 reads the null device, so nothing else in the process can take a client's
    message (as the SDK does for its own reader). None when stdin is not a file descriptor (an
    in-process test runner's stream): the SDK then reads it itself."""
    try:
        fd = sys.stdin.fileno()
        private = os.dup(fd)
    except (AttributeError, ValueError, OSError, io.UnsupportedOperation):
        yield None
        return
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, fd)
    os.close(null)
    try:
        yield StdinLines(private, prefix)
    finally:
        # `private` stays open: the daemon thread may still be blocked reading it.
        os.dup2(private, fd)


class StdinLines:
    """An async iterator of text lines (with their newline) from a file descriptor, read by a daemon
    thread, after the bytes of `prefix`. The caller owns `fd`; it is never closed here."""

    def __init__(self, fd: int, prefix: bytes = b"") -> None:
        self.fd = fd
        self.prefix = prefix
        self._closed = False
        self._send: MemoryObjectSendStream[bytes] | None = None

    def close(self) -> None:
        """End the lines here, as at end of input (the gateway stopping); the thread's reads are dropped."""
        self._closed = True
        if self._send is not None:
            self._send.close()

    def __aiter__(self) -> AsyncIterator[str]:
        return self._lines()

    async def _lines(self) -> AsyncIterator[str]:
        send: MemoryObjectSendStream[bytes]
        receive: MemoryObjectReceiveStream[bytes]
        send, receive = anyio.create_memory_object_stream[bytes](math.inf)
        self._send = send
        if self._closed:
            send.close()
        token = anyio.lowlevel.current_token()
        thread = threading.Thread(
            target=_pump, args=(self.fd, send, token), name="specbridge stdin", daemon=True
        )
        thread.start()
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        pending = decoder.decode(self.prefix)
        while "\n" in pending:
            line, pending = pending.split("\n", 1)
            yield line + "\n"
        async with receive:
            async for chunk in receive:
                pending += decoder.decode(chunk)
                while "\n" in pending:
                    line, pending = pending.split("\n", 1)
                    yield line + "\n"
        pending += decoder.decode(b"", final=True)
        if pending:
            yield pending


def _pump(fd: int, send: MemoryObjectSendStream[bytes], token: anyio.lowlevel.EventLoopToken) -> None:
    """Runs in the daemon thread until end of input, a read error, or the event loop going away."""
    try:
        while True:
            try:
                chunk = os.read(fd, _CHUNK)
            except InterruptedError:
                continue
            except OSError:
                chunk = b""
            if not chunk:
                anyio.from_thread.run_sync(send.close, token=token)
                return
            anyio.from_thread.run_sync(send.send_nowait, chunk, token=token)
    except (RuntimeError, anyio.ClosedResourceError, anyio.BrokenResourceError):
        return  # the loop has finished, or the reader stopped listening: nothing left to hand over
