"""The sealed-values part of the store contract (grants/ keeps OAuth tokens there), on SQLite,
PostgreSQL and Redis alike: bytes in, the same bytes out, until they expire; a take hands them out once."""

from __future__ import annotations

import asyncio

from specbridge.store import Store, open_store

NOW = 1_764_500_000.25
HOUR = 3600.0
SEALED = bytes(range(256)) + b"\x00\xff\r\n"


async def test_a_sealed_value_is_read_back_byte_for_byte_until_it_expires(store: Store) -> None:
    await store.put_sealed("oauth:shop:shared", SEALED, NOW + HOUR, NOW)
    assert await store.get_sealed("oauth:shop:shared", NOW + HOUR - 1) == SEALED
    assert await store.get_sealed("oauth:shop:shared", NOW + HOUR) is None
    assert await store.get_sealed("oauth:shop:other", NOW) is None


async def test_a_second_put_replaces_the_value_and_its_expiry(store: Store) -> None:
    await store.put_sealed("k", b"first", NOW + 10, NOW)
    await store.put_sealed("k", b"second", NOW + HOUR, NOW + 5)
    assert await store.get_sealed("k", NOW + 60) == b"second"


async def test_a_take_hands_the_value_to_one_of_many_takers_and_removes_it(store: Store) -> None:
    await store.put_sealed("state:abc", SEALED, NOW + HOUR, NOW)
    taken = await asyncio.gather(*(store.take_sealed("state:abc", NOW) for _ in range(8)))
    assert sorted(taken, key=lambda value: value is None) == [SEALED] + [None] * 7
    assert await store.get_sealed("state:abc", NOW) is None
    assert await store.take_sealed("state:abc", NOW) is None


async def test_an_expired_value_cannot_be_taken(store: Store) -> None:
    await store.put_sealed("connect:x", b"link", NOW + 60, NOW)
    assert await store.take_sealed("connect:x", NOW + 61) is None


async def test_a_key_that_cannot_exist_reads_as_nothing(store: Store) -> None:
    assert await store.get_sealed("state:\x00", NOW) is None
    assert await store.take_sealed("state:\ud800", NOW) is None


async def test_two_connections_to_one_store_see_one_value_and_one_take(store_url: str) -> None:
    async with open_store(store_url) as one, open_store(store_url) as two:
        await one.put_sealed("oauth:shared", b"token", NOW + HOUR, NOW)
        assert await two.get_sealed("oauth:shared", NOW) == b"token"
        taken = await asyncio.gather(
            one.take_sealed("oauth:shared", NOW), two.take_sealed("oauth:shared", NOW)
        )
        assert sorted(taken, key=lambda value: value is None) == [b"token", None]
