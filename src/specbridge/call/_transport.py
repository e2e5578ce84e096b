"""The transport that resolves, checks and pins: a connection only ever goes to an address the egress
policy checked a moment before, so there is no window for DNS rebinding.

`PinnedBackend` is an httpcore network backend: httpcore asks it for a TCP connection to the URL's host
name; it resolves the name itself, checks every address, and connects to a checked address. TLS is
started afterwards by httpcore on that stream with the *host name* as SNI and for certificate checks.
`EgressTransport` is the wrapper every request passes through, also when a test injects a transport.

`_Pool` is httpcore's connection pool with a cheaper way of placing requests (see its docstring); the
connections, their limits and what they send are httpcore's.
"""

from __future__ import annotations

import select
import socket
import ssl
import threading
from collections.abc import Iterable
from typing import Any

import anyio
import httpcore
import httpx
from httpcore._async.interfaces import AsyncConnectionInterface

from ._egress import EgressPolicy, refused

MAX_CONNECTIONS = 20


class _Stream(httpcore.AsyncNetworkStream):
    """httpcore's anyio stream, answering "is_readable" (asked of every idle connection whenever the pool
    places a request) with one poll(2) on the socket found once, instead of anyio's attribute lookup."""

    def __init__(self, inner: httpcore.AsyncNetworkStream, sock: socket.socket | None = None) -> None:
        self._inner = inner
        self._sock: socket.socket | None = sock if sock is not None else inner.get_extra_info("socket")
        self._poll: select.poll | None = None

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return await self._inner.read(max_bytes, timeout)

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        await self._inner.write(buffer, timeout)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def start_tls(
        self, ssl_context: Any, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.AsyncNetworkStream:
        return _Stream(await self._inner.start_tls(ssl_context, server_hostname, timeout), self._sock)

    def get_extra_info(self, info: str) -> Any:
        if info == "is_readable":
            return self._readable()
        return self._inner.get_extra_info(info)

    def _readable(self) -> bool:
        """As httpcore's `is_socket_readable`: a socket that is gone counts as readable (closed)."""
        sock = self._sock
        if sock is None or sock.fileno() < 0:
            return True
        if self._poll is None:
            self._poll = select.poll()
            self._poll.register(sock, select.POLLIN)
        return bool(self._poll.poll(0))


class _Pool(httpcore.AsyncConnectionPool):
    """httpcore's pool (HTTP/1.1, as the pinned transport makes it), placing waiting requests in one
    pass. httpcore's own pass runs on every request and every response end, asks every pooled connection
    whether it expired (a poll(2) per idle connection) and re-lists the connections for each waiting
    request, which grows with the number of concurrent calls. Here:

    - with no request waiting, only closed connections are dropped;
    - a connection is probed for a server-side close only when a request is about to take it; one found
      closed or expired is closed and the next one tried;
    - a connection already handed to a request that has not started on it yet is not handed to a second
      one (httpcore would, and the second request would go round again);
    - when every connection is busy and the pool is full, the waiting requests stay queued at once.

    The limits (`max_connections`, keep-alive) and everything on the wire are httpcore's."""

    def _assign_requests_to_connections(self) -> list[AsyncConnectionInterface]:
        closing: list[AsyncConnectionInterface] = []
        connections = self._connections
        if any(connection.is_closed() for connection in connections):
            connections[:] = [connection for connection in connections if not connection.is_closed()]
        queued = [request for request in self._requests if request.is_queued()]
        if not queued:
            return closing
        taken = {id(request.connection) for request in self._requests if request.connection is not None}
        free = [c for c in connections if id(c) not in taken and c.is_available()]
        for pool_request in queued:
            origin = pool_request.request.url.origin
            chosen: AsyncConnectionInterface | None = None
            for connection in [c for c in free if c.can_handle_request(origin)]:
                free.remove(connection)
                if connection.has_expired():
                    connections.remove(connection)
                    closing.append(connection)
                    continue
                chosen = connection
                break
            if chosen is None and len(connections) >= self._max_connections and free:
                idle = free.pop(0)  # an idle connection to another origin makes room
                connections.remove(idle)
                closing.append(idle)
            if chosen is None and len(connections) < self._max_connections:
                chosen = self.create_connection(origin)
                connections.append(chosen)
            if chosen is None:
                if not free:
                    break  # full and all busy: the rest wait for a response to end
                continue
            pool_request.assign_to_connection(chosen)
        return closing


class PinnedBackend(httpcore.AsyncNetworkBackend):
    def __init__(self, policy: EgressPolicy) -> None:
        self._policy = policy
        self._inner = httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        addresses = await self._policy.addresses(host, port)
        failure: Exception | None = None
        for address in addresses:
            try:
                stream = await self._inner.connect_tcp(address, port, timeout, local_address, socket_options)
                return _Stream(stream)
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as error:
                failure = error
        assert failure is not None
        raise failure

    async def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.AsyncNetworkStream:
        raise refused("unix sockets are never used")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


_tls_lock = threading.Lock()
_tls: ssl.SSLContext | None = None


def tls_context() -> ssl.SSLContext:
    """The one TLS client context of this process (httpx's defaults: certifi's CA bundle, no
    environment), made on first use and shared by every connection of every API. Making one reads and
    parses the CA bundle (30-40 ms); an SSLContext is meant to be shared, across threads too."""
    global _tls
    with _tls_lock:
        if _tls is None:
            _tls = httpx.create_ssl_context(trust_env=False)
        return _tls


async def shared_tls_context() -> ssl.SSLContext:
    """`tls_context()`, made in a worker thread the first time, so the event loop never parses the
    CA bundle (loading it lets go of the GIL)."""
    return _tls if _tls is not None else await anyio.to_thread.run_sync(tls_context)


def pinned_transport(policy: EgressPolicy, context: ssl.SSLContext | None = None) -> httpx.AsyncHTTPTransport:
    """httpx's own transport (request/response mapping, TLS on the host name), with our backend."""
    context = context if context is not None else tls_context()
    transport = httpx.AsyncHTTPTransport(verify=context, trust_env=False, retries=0)  # else it makes one
    transport._pool = _Pool(
        ssl_context=context,
        max_connections=MAX_CONNECTIONS,
        retries=0,
        http2=False,
        network_backend=PinnedBackend(policy),
    )
    return transport


class EgressTransport(httpx.AsyncBaseTransport):
    """Every request passes here. With our pinned transport the address check happens when a
    connection is opened; with an injected transport (tests) the host is resolved and checked here."""

    def __init__(self, policy: EgressPolicy, inner: httpx.AsyncBaseTransport | None = None) -> None:
        self._policy = policy
        self._pinned = inner is None
        # The pinned transport is made on the first request, with the process's one TLS context (made
        # off the event loop by the first request of all).
        self._inner: httpx.AsyncBaseTransport | None = inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        url = request.url
        if url.scheme not in ("http", "https"):
            raise refused("only http:// and https:// URLs are followed")
        if not self._pinned:
            await self._policy.addresses(url.host, url.port or (443 if url.scheme == "https" else 80))
        inner = self._inner
        if inner is None:
            context = await shared_tls_context()
            inner = self._inner if self._inner is not None else pinned_transport(self._policy, context)
            self._inner = inner
        return await inner.handle_async_request(request)

    async def aclose(self) -> None:
        if self._inner is not None:
            await self._inner.aclose()
