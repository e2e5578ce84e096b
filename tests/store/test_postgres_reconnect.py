"""`store/_postgres.py`: after the database was gone long enough for psycopg_pool's own doubling backoff
to wait many seconds, the first operation once it is back succeeds (within the store's timeout), and
every operation while it is gone fails with `store-unavailable` within the timeout. The outage is a
TCP proxy in front of the machine's PostgreSQL that stops listening and resets its connections (the
figures with a real server stopped and started are bench/store_outage.py's, in docs/store.md)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from urllib.parse import urlsplit

import anyio
import pytest

from specbridge import ErrorCode
from specbridge.store import StoreError, open_store
from tests.support.proxy import Proxy
from tests.support.stores import POSTGRES, refused, through

TIMEOUT = 3
# Failed operations while the database is away: about 18 s, by which psycopg_pool alone would wait
# 16 s before its next attempt (1, 2, 4, 8, 16 s apart).
FAILED_WHILE_AWAY = 6


@pytest.fixture
def proxy() -> Iterator[Proxy]:
    reason = refused(POSTGRES)
    if reason:
        pytest.skip(reason)
    parts = urlsplit(POSTGRES)
    with Proxy(parts.hostname or "127.0.0.1", parts.port or 5432) as started:
        yield started


async def test_the_first_operation_after_the_database_is_back_succeeds(
    proxy: Proxy, namespaces: Callable[[str], str]
) -> None:
    url = f"{through(proxy, POSTGRES)}?namespace={namespaces('postgresql')}&timeout={TIMEOUT}"
    async with open_store(url) as store:
        assert await store.get_approval("a1") is None
        proxy.down()
        try:
            for _ in range(FAILED_WHILE_AWAY):
                with anyio.fail_after(TIMEOUT + 5), pytest.raises(StoreError) as failed:
                    await store.get_approval("a1")
                assert failed.value.code == ErrorCode.STORE_UNAVAILABLE
        finally:
            proxy.up()
        with anyio.fail_after(TIMEOUT + 5):
            assert await store.get_approval("a1") is None
            assert await store.expire_due(0.0) == 0
