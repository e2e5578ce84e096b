"""`store/_redis_pool.py`: one instance never holds more Redis connections than `?connections=` allows,
however many operations run at once, and closes the ones left idle (counted at a TCP proxy in front of
the machine's Redis)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from urllib.parse import urlsplit

import anyio
import pytest

from specbridge.store import open_store
from specbridge.store._redis import RedisStore
from tests.support.proxy import Proxy
from tests.support.stores import REDIS, refused, through

BURST = 60


@pytest.fixture
def proxy() -> Iterator[Proxy]:
    reason = refused(REDIS)
    if reason:
        pytest.skip(reason)
    parts = urlsplit(REDIS)
    with Proxy(parts.hostname or "127.0.0.1", parts.port or 6379) as started:
        yield started


async def test_a_burst_of_operations_never_opens_more_connections_than_the_bound(
    proxy: Proxy, namespaces: Callable[[str], str]
) -> None:
    url = f"{through(proxy, REDIS)}?namespace={namespaces('redis')}&connections=3"
    async with open_store(url) as store:
        approvals = await asyncio.gather(*(store.get_approval(f"a{n}") for n in range(BURST)))
        claims = await asyncio.gather(*(store.claim(f"k{n}", "me", "fp", 60, 60, 0.0) for n in range(BURST)))
    assert approvals == [None] * BURST and all(claim.won for claim in claims)
    assert 1 <= proxy.accepted <= 3


async def test_idle_connections_are_closed(proxy: Proxy, namespaces: Callable[[str], str]) -> None:
    store = RedisStore(through(proxy, REDIS), prefix=namespaces("redis"), max_connections=4, idle=1.0)
    async with store:
        await asyncio.gather(*(store.get_approval(f"a{n}") for n in range(BURST)))
        assert proxy.open >= 1
        closed = await anyio.to_thread.run_sync(lambda: proxy.wait_open(at_most=0, timeout=10))
        assert closed, f"{proxy.open} connections still open"
        assert await store.get_approval("again") is None  # a closed one is opened again when needed
