"""The rate-limit part of the store contract (`Store.count_call`), on SQLite, PostgreSQL and Redis alike:
a sliding window per key, all limits of one call or none, atomic across connections and instances."""

from __future__ import annotations

import sqlite3

import anyio
import psycopg
import pytest

from specbridge.store import RateLimit, Store, open_store

NOW = 1_764_500_000.25


def limit(key: str = "client-a", calls: int = 3, window: float = 60.0) -> RateLimit:
    return RateLimit(key, calls, window)


async def test_a_key_takes_its_calls_then_refuses_until_the_oldest_leaves_the_window(store: Store) -> None:
    counted = [await store.count_call([limit()], NOW + second) for second in (0, 1, 2)]
    assert counted == [(0.0,), (0.0,), (0.0,)]
    (wait,) = await store.count_call([limit()], NOW + 5)
    assert wait == pytest.approx(55.0)  # the first call, at NOW, leaves the window at NOW + 60
    assert await store.count_call([limit()], NOW + 59.5) == (pytest.approx(0.5),)
    assert await store.count_call([limit()], NOW + 60) == (0.0,)  # a refused call was not counted
    (wait,) = await store.count_call([limit()], NOW + 60.5)
    assert wait == pytest.approx(0.5)  # now the call at NOW + 1 is the oldest of the last three


async def test_a_window_slides_so_no_boundary_lets_twice_the_calls_through(store: Store) -> None:
    ten = limit(calls=10, window=60.0)
    late = [await store.count_call([ten], NOW + 59 + i / 100) for i in range(10)]
    early = [await store.count_call([ten], NOW + 61 + i / 100) for i in range(10)]
    assert all(wait == (0.0,) for wait in late)
    assert all(wait[0] > 0 for wait in early)


async def test_one_full_limit_refuses_the_call_under_every_limit(store: Store) -> None:
    per_client, per_tool = limit("client", calls=5), limit("client+refund", calls=1)
    assert await store.count_call([per_client, per_tool], NOW) == (0.0, 0.0)
    waits = await store.count_call([per_client, per_tool], NOW + 1)
    assert waits[0] == 0.0 and waits[1] == pytest.approx(59.0)
    # the refused call was counted under neither key: the client still has four of five
    assert [await store.count_call([per_client], NOW + 2) for _ in range(4)] == [(0.0,)] * 4
    assert (await store.count_call([per_client], NOW + 2))[0] > 0


async def test_keys_and_limits_are_counted_apart(store: Store) -> None:
    assert await store.count_call([limit("a", calls=1)], NOW) == (0.0,)
    assert await store.count_call([limit("b", calls=1)], NOW) == (0.0,)
    assert (await store.count_call([limit("a", calls=1)], NOW))[0] > 0
    # the same key under another limit (the config changed) starts afresh
    assert await store.count_call([limit("a", calls=2)], NOW) == (0.0,)


async def test_a_longer_window_for_the_same_key_keeps_its_calls(store: Store) -> None:
    assert await store.count_call([limit(calls=1, window=10)], NOW) == (0.0,)
    assert await store.count_call([limit(calls=1, window=10)], NOW + 20) == (0.0,)
    (wait,) = await store.count_call([limit(calls=1, window=3600)], NOW + 30)
    assert wait == pytest.approx(3590.0)


async def test_concurrent_calls_from_two_instances_never_pass_the_limit(store_url: str) -> None:
    """Forty calls at once over two stores on one backend (two gateway instances): exactly five pass."""
    async with open_store(store_url) as one, open_store(store_url) as two:
        results: list[float] = []

        async def call(store: Store) -> None:
            results.append((await store.count_call([limit("shared", calls=5)], NOW))[0])

        with anyio.fail_after(60):
            async with anyio.create_task_group() as tasks:
                for index in range(40):
                    tasks.start_soon(call, one if index % 2 else two)
    assert sorted(results)[:5] == [0.0] * 5
    assert all(wait == pytest.approx(60.0) for wait in sorted(results)[5:])
    assert len(results) == 40


async def test_no_limits_count_nothing(store: Store) -> None:
    assert await store.count_call([], NOW) == ()


async def test_keys_whose_window_has_passed_are_forgotten_as_other_calls_are_counted(store_url: str) -> None:
    if store_url.startswith("redis"):
        pytest.skip("Redis forgets a key by itself: each set expires once its window has passed")
    async with open_store(store_url) as store:
        for index in range(5):
            await store.count_call([limit(f"idle-{index}", calls=2, window=10)], NOW)
        await store.count_call([limit("busy", calls=2, window=10)], NOW + 11)
    assert tables(store_url) == ({"busy"}, {"busy"})


def tables(store_url: str) -> tuple[set[str], set[str]]:
    """The keys of `rate_counters` and of `rate_calls`, read past the store."""
    queries = ("SELECT key FROM rate_counters", "SELECT key FROM rate_calls")
    if store_url.startswith("sqlite"):
        db = sqlite3.connect(store_url.removeprefix("sqlite:///"))
        try:
            counters, calls = ({row[0] for row in db.execute(query)} for query in queries)
        finally:
            db.close()
        return counters, calls
    url, _, namespace = store_url.partition("?namespace=")
    with psycopg.connect(url, autocommit=True, options=f"-c search_path={namespace}") as conn:
        counters, calls = ({row[0] for row in conn.execute(query.encode())} for query in queries)
    return counters, calls
