"""The transport that resolves, checks and pins: a connection only ever goes to an address the egress
policy checked a moment before, so there is no window for DNS rebinding.

`PinnedBackend` is an httpcore network backend: httpcore asks it for a TCP connection to the URL's host
name; it resolves the name itself, checks every address, and connects to a checked address. TLS is
started afterwards by httpcore on that stream with the *host name* as SNI and for certificate checks.
`EgressTransport` is the wrapper every request passes through, also when a test injects a transport.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import httpcore
import httpx

from ._egress import EgressPolicy, refused

MAX_CONNECTIONS = 20


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
                return await self._inner.connect_tcp(address, port, timeout, local_address, socket_options)
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


def pinned_transport(policy: EgressPolicy) -> httpx.AsyncHTTPTransport:
    """httpx's own transport (request/response mapping, TLS on the host name), with our backend."""
    transport = httpx.AsyncHTTPTransport(trust_env=False, retries=0)
    transport._pool = httpcore.AsyncConnectionPool(
        ssl_context=httpx.create_ssl_context(trust_env=False),
        max_connections=MAX_CONNECTIONS,
        retries=0,
        network_backend=PinnedBackend(policy),
    )
    return transport


class EgressTransport(httpx.AsyncBaseTransport):
    """Every request passes here. With our pinned transport the address check happens when a
    connection is opened; with an injected transport (tests) the host is resolved and checked here."""

    def __init__(self, policy: EgressPolicy, inner: httpx.AsyncBaseTransport | None = None) -> None:
        self._policy = policy
        self._pinned = inner is None
        self._inner = inner if inner is not None else pinned_transport(policy)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        url = request.url
        if url.scheme not in ("http", "https"):
            raise refused("only http:// and https:// URLs are followed")
        if not self._pinned:
            await self._policy.addresses(url.host, url.port or (443 if url.scheme == "https" else 80))
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self._inner.aclose()
