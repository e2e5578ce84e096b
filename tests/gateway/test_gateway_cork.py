"""One write per answer (gateway/_cork.py): what is written in one turn of the loop leaves together."""

from __future__ import annotations

import asyncio
from typing import Any

from specbridge.gateway._cork import CorkedTransport, http_protocol


class Recording:
    """What a transport was asked to do (the part of asyncio's transport the cork uses)."""

    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.closed = False

    def write(self, data: bytes) -> None:
        self.writes.append(data)

    def is_closing(self) -> bool:
        return self.closed

    def close(self) -> None:
        self.closed = True

    def get_write_buffer_size(self) -> int:
        return 0

    def get_extra_info(self, name: str) -> Any:
        return ("127.0.0.1", 1) if name == "peername" else None


async def test_the_headers_and_body_of_an_answer_leave_in_one_write() -> None:
    real = Recording()
    corked = CorkedTransport(real)
    corked.write(b"HTTP/1.1 200 OK\r\n\r\n")
    corked.write(b'{"ok": true}')
    assert real.writes == [] and corked.get_write_buffer_size() == 31
    await asyncio.sleep(0)
    assert real.writes == [b'HTTP/1.1 200 OK\r\n\r\n{"ok": true}']
    corked.write(b"next")
    await asyncio.sleep(0)
    assert real.writes[1:] == [b"next"]


async def test_closing_sends_what_was_written_first() -> None:
    real = Recording()
    corked = CorkedTransport(real)
    corked.write(b"last words")
    corked.close()
    assert real.writes == [b"last words"] and real.closed
    assert corked.get_extra_info("peername") == ("127.0.0.1", 1)


def test_the_protocol_is_uvicorns_own_with_the_cork() -> None:
    protocol = http_protocol()
    assert protocol.__name__ in ("CorkedHttpToolsProtocol", "CorkedH11Protocol")
    assert protocol.__mro__[1].__module__.startswith("uvicorn.protocols.http")
