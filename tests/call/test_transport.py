"""The pinned transport's connection pool (call/_transport.py `_Pool`, which places requests its own way):
many calls at once stay within MAX_CONNECTIONS, a connection is reused, and one the server closed while
idle is not used again."""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from collections.abc import Callable

import anyio
import httpx
import pytest

from specbridge.call import Caller
from specbridge.call._egress import EgressPolicy
from specbridge.call._transport import MAX_CONNECTIONS, pinned_transport, shared_tls_context, tls_context
from tests.call._caller import api_config, toolset_for
from tests.support.upstream import Upstream


class _Server:
    """HTTP/1.1 on loopback answering "ok"; optionally holding every answer until `hold_until`
    connections are open (so calls overlap for sure), optionally closing after each answer."""

    def __init__(self, *, hold_until: int = 0, close_after_each: bool = False) -> None:
        self.hold_until = hold_until
        self.close_after_each = close_after_each
        self.accepted = 0
        self.answered = 0
        self.closed = 0
        self.changed = asyncio.Event()

    async def start(self) -> int:
        self.server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        return int(self.server.sockets[0].getsockname()[1])

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.accepted += 1
        self.changed.set()
        try:
            while True:
                await reader.readuntil(b"\r\n\r\n")
                if self.hold_until:
                    await self.wait_for(lambda: self.accepted >= self.hold_until)
                writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok")
                await writer.drain()
                self.answered += 1
                if self.close_after_each:
                    break  # closes without saying so (no `Connection: close`)
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()
            with contextlib.suppress(ConnectionError):
                await writer.wait_closed()
            self.closed += 1
            self.changed.set()

    async def wait_for(self, condition: Callable[[], bool]) -> None:
        with anyio.fail_after(5):
            while not condition():
                self.changed.clear()
                await self.changed.wait()

    async def wait_closed(self, count: int) -> None:
        """Until `count` connections have been closed by the server (their FIN is on its way)."""
        await self.wait_for(lambda: self.closed >= count)

    async def stop(self) -> None:
        self.server.close()


async def _client(port: int) -> tuple[httpx.AsyncClient, httpx.AsyncHTTPTransport]:
    transport = pinned_transport(EgressPolicy(allow=[f"127.0.0.1:{port}"]))
    return httpx.AsyncClient(transport=transport, base_url=f"http://127.0.0.1:{port}"), transport


async def test_many_calls_at_once_share_at_most_max_connections() -> None:
    server = _Server(hold_until=MAX_CONNECTIONS)
    port = await server.start()
    client, transport = await _client(port)
    statuses: list[int] = []

    async def one() -> None:
        statuses.append((await client.get("/")).status_code)

    async with client:
        async with anyio.create_task_group() as tasks:
            for _ in range(3 * MAX_CONNECTIONS + 5):
                tasks.start_soon(one)
        assert statuses == [200] * (3 * MAX_CONNECTIONS + 5)
        assert server.accepted == MAX_CONNECTIONS  # the calls overlapped up to the cap, and no further
        assert len(transport._pool.connections) <= MAX_CONNECTIONS
        assert transport._pool._requests == []
    await server.stop()


async def test_calls_one_after_another_reuse_one_connection() -> None:
    server = _Server()
    port = await server.start()
    client, _ = await _client(port)
    async with client:
        for _ in range(10):
            assert (await client.get("/")).text == "ok"
    assert server.accepted == 1
    await server.stop()


async def test_a_connection_the_server_closed_while_idle_is_not_used_again() -> None:
    server = _Server(close_after_each=True)
    port = await server.start()
    client, _ = await _client(port)
    async with client:
        for _ in range(5):
            assert (await client.get("/")).text == "ok"
            await server.wait_closed(server.answered)  # the pool must notice the FIN, not send on it
        assert server.accepted == 5
        assert server.answered == 5
    await server.stop()


async def test_the_pinned_connection_goes_to_the_checked_address_not_a_second_lookup(
    upstream: Upstream,
) -> None:
    answers = iter([["127.0.0.1"], ["10.9.9.9"]])
    lookups: list[str] = []

    async def resolve(host: str, port: int) -> list[str]:
        lookups.append(host)
        return next(answers)

    api = api_config(f"http://upstream.example:{upstream.port}/v1", allow=("upstream.example",))
    caller = Caller(api, toolset_for(), resolve=resolve)
    with anyio.fail_after(10):
        result = await caller.call("ping", {})
    await caller.aclose()
    assert not result.is_error
    assert lookups == ["upstream.example"]  # one resolution, and the connection used its answer
    assert upstream.requests[-1].headers["host"] == f"upstream.example:{upstream.port}"


async def test_every_api_and_connection_shares_the_one_tls_context_of_the_process(
    upstream: Upstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    tls_context()  # the first one of the process: no transport below may make another

    def made(*args: object, **kwargs: object) -> ssl.SSLContext:
        raise AssertionError("a second TLS context was made")

    monkeypatch.setattr(ssl, "create_default_context", made)
    callers = [
        Caller(
            api_config(f"http://127.0.0.1:{upstream.port}/v1", allow=(f"127.0.0.1:{upstream.port}",)),
            toolset_for(),
        )
        for _ in range(2)
    ]
    with anyio.fail_after(10):
        for caller in callers:
            for _ in range(2):
                assert not (await caller.call("ping", {})).is_error
    pools = [caller._transport._inner._pool for caller in callers]  # type: ignore[union-attr]
    for caller in callers:
        await caller.aclose()
    assert all(pool._ssl_context is tls_context() for pool in pools)
    assert await shared_tls_context() is tls_context()
    assert pinned_transport(EgressPolicy(allow=()))._pool._ssl_context is tls_context()
