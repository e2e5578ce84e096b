"""One write per answer: the bytes a protocol writes during one turn of the event loop leave together.

uvicorn writes an answer's headers and its body with two `transport.write` calls, and each is a
`send(2)` of its own on an idle connection: two system calls, two TCP segments (Nagle is off) and two
wake-ups of the client for every tools/call. Between the two writes nothing yields to the loop, so
holding what is written until the end of the loop's current turn (`call_soon`) sends the whole answer
with one call, no later (docs/history/benchmarks-speed.md, "Start-up and each call").
"""

from __future__ import annotations

import asyncio  # asyncio: uvicorn's HTTP protocol is an asyncio.Protocol
import importlib.util
from typing import Any


class CorkedTransport:
    """A transport whose writes of one loop turn go out as one write; everything else is the real one's."""

    def __init__(self, transport: Any) -> None:
        self._transport = transport
        self._pending: list[bytes] = []
        self._loop = asyncio.get_running_loop()

    def write(self, data: bytes | bytearray | memoryview) -> None:
        if not self._pending:
            self._loop.call_soon(self._flush)
        self._pending.append(bytes(data))

    def writelines(self, lines: Any) -> None:
        for data in lines:
            self.write(data)

    def _flush(self) -> None:
        if self._pending:
            data = b"".join(self._pending) if len(self._pending) > 1 else self._pending[0]
            self._pending.clear()
            if not self._transport.is_closing():
                self._transport.write(data)

    def get_write_buffer_size(self) -> int:
        return int(self._transport.get_write_buffer_size()) + sum(map(len, self._pending))

    def write_eof(self) -> None:
        self._flush()
        self._transport.write_eof()

    def close(self) -> None:
        self._flush()
        self._transport.close()

    def abort(self) -> None:
        self._pending.clear()
        self._transport.abort()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


def corked(protocol: type[asyncio.Protocol]) -> type[asyncio.Protocol]:
    """`protocol` (uvicorn's HTTP protocol class) writing through a `CorkedTransport`."""

    class Corked(protocol):  # type: ignore[misc, valid-type]
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            super().connection_made(CorkedTransport(transport))

    Corked.__name__ = Corked.__qualname__ = f"Corked{protocol.__name__}"
    return Corked


def http_protocol() -> type[asyncio.Protocol]:
    """uvicorn's HTTP protocol (httptools when installed, else h11), writing each answer at once."""
    if importlib.util.find_spec("httptools") is not None:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

        return corked(HttpToolsProtocol)
    from uvicorn.protocols.http.h11_impl import H11Protocol

    return corked(H11Protocol)
