"""Opening a store: the URL picks the backend, and every way of failing is one coded message."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import psycopg
import pytest
import redis

from specbridge import ErrorCode
from specbridge.store import DEFAULT_STORE, StoreError, open_store
from specbridge.store._postgres import PostgresStore
from specbridge.store._redis import RedisStore
from specbridge.store._sqlite import SqliteStore


async def test_a_relative_sqlite_path_is_taken_from_the_config_folder_and_its_folder_is_made(
    tmp_path: Path,
) -> None:
    store = open_store(DEFAULT_STORE, base=tmp_path)
    assert isinstance(store, SqliteStore)
    async with store:
        assert await store.list_approvals() == []
    assert (tmp_path / ".specbridge" / "state.db").is_file()


def test_the_url_picks_the_backend_and_the_namespace() -> None:
    postgres = open_store("postgresql://u:secret@db.example:5432/app?namespace=gw_a&sslmode=require")
    assert isinstance(postgres, PostgresStore)
    assert (postgres.schema, postgres.url) == (
        "gw_a",
        "postgresql://u:secret@db.example:5432/app?sslmode=require",
    )
    assert "secret" not in postgres.name
    cache = open_store("redis://:secret@cache.example:6379/2", namespace="gw_b")
    assert isinstance(cache, RedisStore)
    assert cache.prefix == "gw_b:"
    assert "secret" not in cache.name


def test_the_stores_own_query_parameters_set_its_timeout_and_connections_and_are_not_sent_on() -> None:
    postgres = open_store("postgresql://u@db.example/app?timeout=500ms&sslmode=require&connections=4")
    assert isinstance(postgres, PostgresStore)
    assert (postgres.timeout, postgres.max_connections) == (0.5, 4)
    assert postgres.url == "postgresql://u@db.example/app?sslmode=require"
    cache = open_store("redis://cache.example:6379/2?timeout=2.5s&connections=20")
    assert isinstance(cache, RedisStore)
    assert (cache.timeout, cache.max_connections, cache.url) == (2.5, 20, "redis://cache.example:6379/2")
    assert open_store("sqlite:////tmp/x.db?timeout=7").timeout == 7.0
    assert open_store("redis://cache.example").timeout == 5.0  # the default: a few seconds


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("redis://localhost?timeout=0", "store timeout '0'"),
        ("redis://localhost?timeout=forever", "store timeout 'forever'"),
        ("redis://localhost?timeout=301", "at most 300"),
        ("postgresql://localhost/db?connections=0", "store connections '0'"),
        ("postgresql://localhost/db?connections=many", "a whole number from 1 to 1000"),
        ("mysql://db.example/app", "must be a sqlite:///PATH"),
        ("sqlite://relative.db", "write sqlite:///PATH"),
        ("redis://localhost?namespace=1bad-name", "the store's namespace: use letters"),
    ],
)
def test_a_url_that_names_no_usable_store_is_refused_saying_what_to_write(url: str, says: str) -> None:
    with pytest.raises(StoreError) as caught:
        open_store(url)
    assert caught.value.code is ErrorCode.STORE_UNAVAILABLE
    assert says in caught.value.message


@pytest.mark.parametrize("url", ["postgresql://postgres:pw@127.0.0.1:1/test", "redis://:pw@127.0.0.1:1/0"])
async def test_a_server_that_refuses_the_connection_is_reported_without_the_password(url: str) -> None:
    with pytest.raises(StoreError) as caught:
        await open_store(url).start()
    assert caught.value.code is ErrorCode.STORE_UNAVAILABLE
    assert caught.value.message.startswith("cannot open the store ")
    assert ":pw@" not in caught.value.message


async def test_a_sqlite_file_that_cannot_be_made_is_reported(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("not a folder", encoding="utf-8")
    with pytest.raises(StoreError) as caught:
        await open_store(f"sqlite:///{tmp_path / 'file' / 'state.db'}").start()
    assert caught.value.code is ErrorCode.STORE_UNAVAILABLE


async def test_a_store_written_by_a_newer_specbridge_is_refused_on_every_backend(
    store_url: str,
) -> None:
    async with open_store(store_url) as store:
        pass
    if isinstance(store, SqliteStore):
        with closing(sqlite3.connect(store.path)) as db, db:
            db.execute("INSERT INTO schema_version (version) VALUES (99)")
    elif isinstance(store, PostgresStore):
        with psycopg.connect(store.url, autocommit=True) as conn:
            conn.execute(f'INSERT INTO "{store.schema}".schema_version (version) VALUES (99)'.encode())
    else:
        assert isinstance(store, RedisStore)
        with redis.Redis.from_url(store.url) as client:
            client.set(store.prefix + "schema_version", 99)
    with pytest.raises(StoreError) as caught:
        await open_store(store_url).start()
    assert "schema is version 99" in caught.value.message
    assert "upgrade" in caught.value.message


async def test_a_failure_after_opening_is_a_coded_store_error_never_a_driver_exception(
    store_url: str,
) -> None:
    async with open_store(store_url) as store:
        # Pull the data out from under the open store, as an operator's mistake or a failover might.
        if isinstance(store, SqliteStore):
            with closing(sqlite3.connect(store.path)) as db, db:
                db.execute("DROP TABLE approvals")
        elif isinstance(store, PostgresStore):
            with psycopg.connect(store.url, autocommit=True) as conn:
                conn.execute(f'DROP TABLE "{store.schema}".approvals'.encode())
        else:
            assert isinstance(store, RedisStore)
            with redis.Redis.from_url(store.url) as client:
                client.set(store.prefix + "a:some-id", "not a hash")
        with pytest.raises(StoreError) as caught:
            await store.get_approval("some-id")
    assert caught.value.code is ErrorCode.STORE_UNAVAILABLE
    assert caught.value.message.startswith(f"the store {store.name} failed: ")
