"""The listening socket `bind` makes: connections accepted on it get TCP_NODELAY from the event loop
(asyncio sets it only on sockets whose protocol is TCP). Without it, a response body written after its
headers waits for the client's delayed ACK."""

from __future__ import annotations

import asyncio
import socket

from specbridge.gateway import bind


async def test_accepted_connections_have_tcp_nodelay() -> None:
    sock = bind("127.0.0.1", 0)
    loop = asyncio.get_running_loop()
    accepted: asyncio.Future[socket.socket] = loop.create_future()

    class Protocol(asyncio.Protocol):
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            accepted.set_result(transport.get_extra_info("socket"))

    server = await loop.create_server(Protocol, sock=sock)
    try:
        _, writer = await asyncio.open_connection(*sock.getsockname()[:2])
        peer = await asyncio.wait_for(accepted, 10)
        assert peer.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
        writer.close()
    finally:
        server.close()
        await server.wait_closed()
