"""The sessions part of the store contract (MCP sessions and admin sign-ins any instance serves), on
SQLite, PostgreSQL and Redis alike: a session put is read back until it expires, a touch keeps it
longer and never brings back one that ended, each owner's sessions are counted, and another store
object on the same store sees all of it."""

from __future__ import annotations

import asyncio

from specbridge.store import Store, StoredSession, open_store

NOW = 1_764_500_000.25
IDLE = 1800.0


def session(sid: str = "a" * 64, *, owner: str = "agent", kind: str = "mcp:shop") -> StoredSession:
    data = {"protocol_version": "2025-06-18", "capabilities": {"elicitation": {}}, "client_info": None}
    return StoredSession(sid, kind, owner, data, NOW, NOW, NOW + IDLE)


async def test_a_session_is_read_back_as_it_was_put_until_it_expires(store: Store) -> None:
    await store.put_session(session(), NOW)
    assert await store.get_session("a" * 64, NOW + IDLE - 1) == session()
    assert await store.get_session("a" * 64, NOW + IDLE) is None
    assert await store.get_session("b" * 64, NOW) is None


async def test_a_touch_keeps_a_session_longer_and_never_shortens_it(store: Store) -> None:
    await store.put_session(session(), NOW)
    assert await store.touch_session("a" * 64, NOW + 100 + IDLE, NOW + 100)
    touched = await store.get_session("a" * 64, NOW + IDLE + 50)
    assert touched is not None and touched.last_seen == NOW + 100 and touched.expires_at == NOW + 100 + IDLE
    assert await store.touch_session("a" * 64, NOW + 10, NOW + 200)
    kept = await store.get_session("a" * 64, NOW + IDLE + 50)
    assert kept is not None and kept.expires_at == NOW + 100 + IDLE and kept.last_seen == NOW + 200


async def test_a_touch_does_not_bring_back_an_ended_or_expired_session(store: Store) -> None:
    await store.put_session(session(), NOW)
    assert await store.end_session("a" * 64)
    assert not await store.end_session("a" * 64)
    assert not await store.touch_session("a" * 64, NOW + IDLE, NOW)
    assert await store.get_session("a" * 64, NOW) is None
    await store.put_session(session("c" * 64), NOW)
    assert not await store.touch_session("c" * 64, NOW + 2 * IDLE, NOW + IDLE)
    assert await store.get_session("c" * 64, NOW + IDLE + 1) is None


async def test_sessions_are_counted_per_kind_and_owner_and_expired_ones_do_not_count(store: Store) -> None:
    for number in range(3):
        await store.put_session(session(str(number) * 64), NOW)
    await store.put_session(session("x" * 64, owner="other"), NOW)
    await store.put_session(session("y" * 64, kind="admin"), NOW)
    await store.put_session(
        StoredSession("z" * 64, "mcp:shop", "agent", {}, NOW - IDLE, NOW - IDLE, NOW + 10), NOW
    )
    assert await store.count_sessions("mcp:shop", "agent", NOW) == 4
    assert await store.count_sessions("mcp:shop", "agent", NOW + 11) == 3
    assert await store.count_sessions("mcp:shop", "other", NOW) == 1
    assert await store.count_sessions("admin", "agent", NOW) == 1
    await store.end_session("0" * 64)
    assert await store.count_sessions("mcp:shop", "agent", NOW + 11) == 2
    assert await store.count_sessions("mcp:shop", "nobody", NOW) == 0


async def test_a_sweep_forgets_expired_sessions_only(store: Store) -> None:
    await store.put_session(session(), NOW)
    await store.sweep_sessions(NOW + IDLE + 1)
    assert await store.get_session("a" * 64, NOW) is None or store.name.startswith("redis")
    await store.put_session(session("d" * 64), NOW)
    assert await store.sweep_sessions(NOW + IDLE - 1) == 0
    assert await store.get_session("d" * 64, NOW + IDLE - 1) is not None


async def test_an_id_that_cannot_exist_reads_as_no_session(store: Store) -> None:
    assert await store.get_session("\x00", NOW) is None
    assert not await store.touch_session("\ud800", NOW + IDLE, NOW)
    assert not await store.end_session("\x00")


async def test_two_store_objects_on_one_store_see_one_session_and_one_end(store_url: str) -> None:
    async with open_store(store_url) as one, open_store(store_url) as two:
        await one.put_session(session(), NOW)
        assert await two.get_session("a" * 64, NOW) == session()
        ended = await asyncio.gather(one.end_session("a" * 64), two.end_session("a" * 64))
        assert sorted(ended) == [False, True]
        assert await one.get_session("a" * 64, NOW) is None
