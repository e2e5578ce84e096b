"""The files part of the store contract, on SQLite, PostgreSQL and Redis alike."""

from __future__ import annotations

import secrets

from specbridge.store import Store, StoredFile

NOW = 1_764_500_000.25
DAY = 86_400.0


def stored(owner: str = "agent-1", *, now: float = NOW, ttl: float = DAY, size: int = 0) -> StoredFile:
    return StoredFile(
        id=secrets.token_hex(16),
        owner=owner,
        content_type="application/pdf",
        filename="report é.pdf",
        size=size,
        created_at=now,
        expires_at=now + ttl,
    )


async def test_a_file_is_read_back_whole_by_its_owner_byte_for_byte(store: Store) -> None:
    data = bytes(range(256)) * 64 + b"\x00\xff\r\n"
    record = stored(size=len(data))
    await store.put_file(record, data)
    assert await store.get_file(record.id, "agent-1", NOW + 1) == (record, data)


async def test_another_clients_file_reads_exactly_like_one_that_does_not_exist(store: Store) -> None:
    record = stored(size=3)
    await store.put_file(record, b"abc")
    assert await store.get_file(record.id, "agent-2", NOW) is None
    assert await store.get_file("no-such-file", "agent-1", NOW) is None
    assert not await store.delete_file(record.id, "agent-2", NOW)
    assert await store.get_file(record.id, "agent-1", NOW) is not None


async def test_a_deleted_file_is_gone_and_deleting_it_again_removes_nothing(store: Store) -> None:
    record = stored(size=1)
    await store.put_file(record, b"x")
    assert await store.delete_file(record.id, "agent-1", NOW)
    assert await store.get_file(record.id, "agent-1", NOW) is None
    assert not await store.delete_file(record.id, "agent-1", NOW)


async def test_an_expired_file_is_not_handed_out_and_the_sweep_removes_it(store: Store) -> None:
    old, fresh = stored(ttl=60, size=1), stored(ttl=DAY, size=1)
    await store.put_file(old, b"o")
    await store.put_file(fresh, b"f")
    later = NOW + 61
    assert await store.get_file(old.id, "agent-1", later) is None
    assert not await store.delete_file(old.id, "agent-1", later)
    # Redis forgets a file by its own TTL, so its sweep has nothing to remove.
    assert await store.sweep_files(later) == (0 if store.name.startswith("redis") else 1)
    assert await store.sweep_files(later) == 0
    assert await store.get_file(fresh.id, "agent-1", later) == (fresh, b"f")


async def test_an_empty_file_and_one_without_a_name_are_kept_as_such(store: Store) -> None:
    record = StoredFile(
        id=secrets.token_hex(16),
        owner="agent-1",
        content_type="application/octet-stream",
        filename=None,
        size=0,
        created_at=NOW,
        expires_at=NOW + DAY,
    )
    await store.put_file(record, b"")
    assert await store.get_file(record.id, "agent-1", NOW) == (record, b"")


async def test_live_files_names_the_unexpired_files_of_any_owner_and_nothing_else(store: Store) -> None:
    mine, theirs, old = stored("agent-1"), stored("agent-2"), stored(ttl=60)
    for record in (mine, theirs, old):
        await store.put_file(record, b"")
    deleted = stored()
    await store.put_file(deleted, b"")
    await store.delete_file(deleted.id, "agent-1", NOW)
    asked = [mine.id, theirs.id, old.id, deleted.id, "f_never-stored"]
    assert await store.live_files(asked, NOW + 61) == {mine.id, theirs.id}
    assert await store.live_files([], NOW) == set()


async def test_live_files_answers_for_more_ids_than_one_statement_takes(store: Store) -> None:
    records = [stored() for _ in range(3)]
    for record in records:
        await store.put_file(record, b"")
    asked = [secrets.token_hex(16) for _ in range(1200)] + [record.id for record in records]
    assert await store.live_files(asked, NOW) == {record.id for record in records}
