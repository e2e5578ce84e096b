"""`store/_bounded.py`: every operation of every backend ends within the store's timeout with
`store-unavailable` when the store hangs (a TCP proxy in front of the real server that stops
forwarding; a SQLite file another connection holds locked), the admin API then answers 503 within it,
and an id that cannot exist answers "not found" on every backend."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import urlsplit

import anyio
import pytest

from specbridge import ErrorCode
from specbridge.store import Condition, Status, Store, StoredFile, StoreError, open_store
from tests.support.admin import admin_client, auth
from tests.support.proxy import Proxy
from tests.support.stores import POSTGRES, REDIS, refused, through

IMPOSSIBLE = ["a\x00b", "\x00", "\ud800", "ok\udcff"]


@pytest.mark.parametrize("bad", IMPOSSIBLE)
async def test_an_id_that_cannot_exist_is_not_found_on_every_backend(store: Store, bad: str) -> None:
    when = Condition(statuses=frozenset({Status.PENDING}))
    assert await store.get_approval(bad) is None
    assert await store.update_approval(bad, when, {"status": "approved"}) is None
    assert await store.get_claim(bad, 0.0) is None
    assert await store.complete(bad, "owner", {}, 0.0) is False
    assert await store.abandon(bad, "owner", sent=True) is False
    assert await store.get_file(bad, "owner", 0.0) is None
    assert await store.delete_file(bad, "owner", 0.0) is False
    await store.ack(bad)
    await store.retry_at(bad, 0.0, "x")


@pytest.fixture(params=["postgresql", "redis"])
def proxied(request: pytest.FixtureRequest, namespaces: Callable[[str], str]) -> Iterator[tuple[Proxy, str]]:
    """A proxy in front of the machine's PostgreSQL or Redis, and a store URL through it (namespace
    fresh, timeout 1 s)."""
    url = POSTGRES if request.param == "postgresql" else REDIS
    reason = refused(url)
    if reason:
        pytest.skip(reason)
    parts = urlsplit(url)
    with Proxy(parts.hostname or "127.0.0.1", parts.port or 0) as proxy:
        yield proxy, f"{through(proxy, url)}?namespace={namespaces(request.param)}&timeout=1"


async def test_a_store_that_hangs_fails_each_operation_within_its_timeout(proxied: tuple[Proxy, str]) -> None:
    proxy, url = proxied
    async with open_store(url) as store:
        assert await store.get_approval("a1") is None  # answers through the proxy
        proxy.freeze()
        try:
            for operation in (store.get_approval("a1"), store.expire_due(0.0), store.list_approvals()):
                with anyio.fail_after(10), pytest.raises(StoreError) as failed:
                    await operation
                assert failed.value.code == ErrorCode.STORE_UNAVAILABLE
                assert "did not answer within 1 s" in failed.value.message
        finally:
            proxy.thaw()


async def test_a_locked_sqlite_file_fails_a_write_within_the_timeout(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    async with open_store(f"sqlite:///{path}?timeout=0.5") as store:
        holder = sqlite3.connect(path, isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")  # another process's write lock, held
        try:
            with anyio.fail_after(10), pytest.raises(StoreError) as failed:
                await store.expire_due(0.0)
            assert failed.value.code == ErrorCode.STORE_UNAVAILABLE
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        assert await store.expire_due(0.0) == 0  # the next step, with the lock gone, works


async def test_the_admin_api_answers_503_within_the_timeout_while_the_store_hangs(
    proxied: tuple[Proxy, str],
) -> None:
    proxy, url = proxied
    async with admin_client(url) as admin:
        assert (await admin.client.get("/admin/approvals", headers=auth())).status_code == 200
        proxy.freeze()
        try:
            with anyio.fail_after(10):
                listed = await admin.client.get("/admin/approvals", headers=auth())
                shown = await admin.client.get("/admin/approvals/a1", headers=auth())
        finally:
            proxy.thaw()
    for answer in (listed, shown):
        assert answer.status_code == 503
        assert answer.json()["error"]["code"] == "store-unavailable"


async def test_a_file_id_that_cannot_exist_is_404_on_every_backend(store: Store) -> None:
    record = StoredFile(
        id="f_1",
        owner="bot",
        content_type="text/plain",
        filename=None,
        size=1,
        created_at=0.0,
        expires_at=9e9,
    )
    await store.put_file(record, b"x")
    assert await store.get_file("f_1\x00", "bot", 1.0) is None
    assert await store.get_file("f_1", "bot", 1.0) is not None


async def test_a_malformed_approval_id_is_404_on_every_backend(store_url: str) -> None:
    async with admin_client(store_url) as admin:
        shown = await admin.client.get("/admin/approvals/a%00b", headers=auth())
        approved = await admin.client.post("/admin/approvals/%00/approve", headers=auth())
    for answer in (shown, approved):
        assert answer.status_code == 404
        assert answer.json()["error"]["code"] == "approval-not-found"
