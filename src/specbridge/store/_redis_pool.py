"""The Redis store's connections: at most `max_connections` per instance, idle ones closed.

redis-py's default pool opens a connection per concurrent command and keeps every one it opened (three
gateways held 92 connections after a burst, still 92 later). `BoundedPool` is its blocking pool: a
command waits (up to the store's timeout) for one of `max_connections` instead of opening another, and
a connection left unused for `idle` seconds is closed by `close_idle`, which the store runs in the
background. Commands are never retried by the driver (a retried script could apply twice); the
store's timeout bounds each one.
"""

from __future__ import annotations

import contextlib
import time
import weakref
from typing import Any

import anyio
from redis.asyncio import BlockingConnectionPool
from redis.asyncio.connection import AbstractConnection
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

IDLE = 60.0  # seconds a connection may sit unused before it is closed


class BoundedPool(BlockingConnectionPool):
    """A blocking pool that knows when each connection was last handed back."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._released: weakref.WeakKeyDictionary[AbstractConnection, float] = weakref.WeakKeyDictionary()

    async def release(self, connection: AbstractConnection) -> None:
        self._released[connection] = time.monotonic()
        await super().release(connection)

    async def close_idle(self, idle: float) -> int:
        """Close the connections unused for `idle` seconds or more; how many were closed. They leave the
        pool first (synchronously), so no command can take one while it is being closed."""
        now = time.monotonic()
        stale = [
            connection
            for connection in self._available_connections
            if now - self._released.get(connection, now) >= idle
        ]
        if not stale:
            return 0
        self._available_connections = [c for c in self._available_connections if c not in stale]
        for connection in stale:
            with contextlib.suppress(Exception):
                await connection.disconnect()
        return len(stale)

    def open_connections(self) -> int:
        """Connections this pool holds now, in use or idle and connected."""
        idle = sum(1 for connection in self._available_connections if connection.is_connected)
        return idle + len(self._in_use_connections)


def bounded_pool(url: str, *, max_connections: int, timeout: float) -> BoundedPool:
    """The pool for `url`: replies decoded (file bytes are read undecoded per command), every wait and
    socket step bounded by `timeout`, no driver retries."""
    return BoundedPool.from_url(
        url,
        max_connections=max_connections,
        timeout=timeout,
        socket_timeout=timeout,
        socket_connect_timeout=timeout,
        retry=Retry(NoBackoff(), 0),
        decode_responses=True,
    )


async def closing_idle(pool: BoundedPool, idle: float) -> None:
    """Close idle connections every `idle / 2` seconds, until cancelled."""
    while True:
        await anyio.sleep(idle / 2)
        await pool.close_idle(idle)
