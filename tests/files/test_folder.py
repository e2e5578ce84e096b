"""`files.folder`: records in the store, bytes on disk, on SQLite, PostgreSQL and Redis alike."""

from __future__ import annotations

import os
import stat
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from specbridge.config import FilesConfig
from specbridge.files._files import Files
from specbridge.files._folder import GRACE, TEMP, FileFolder, new_file_id
from specbridge.store import Store, open_store
from tests.support.stores import namespaces, store_url

__all__ = ["namespaces", "store_url"]

DATA = bytes(range(256)) * 4096 + b"\x00tail"  # about 1 MB: more than one write step
HOUR = 3600.0


@pytest.fixture
async def store(store_url: str) -> AsyncIterator[Store]:
    async with open_store(store_url) as opened:
        yield opened


def files_on(store: Store, folder: Path, *, max_bytes: int = 25_000_000, ttl: float = HOUR) -> Files:
    async def opened() -> Store:
        return store

    settings = FilesConfig(max_bytes=max_bytes, ttl=ttl, folder=str(folder))
    return Files(opened, lambda: settings)


async def chunks_of(data: bytes, size: int = 64 * 1024) -> AsyncIterator[bytes]:
    for at in range(0, len(data), size):
        yield data[at : at + size]


def names(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.iterdir())


async def test_the_bytes_go_to_the_folder_under_the_files_id_and_the_store_keeps_only_the_record(
    store: Store, tmp_path: Path
) -> None:
    folder = tmp_path / "blobs" / "files"
    files = files_on(store, folder)
    record = await files.put_stream("a", chunks_of(DATA), "image/png", "../../etc/passwd", 25_000_000)
    assert record is not None and record.size == len(DATA)
    assert names(folder) == [record.id]  # never the name the request gave
    assert (folder / record.id).read_bytes() == DATA
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE((folder / record.id).stat().st_mode) == 0o600
    in_store = await store.get_file(record.id, "a", time.time())
    assert in_store == (record, b"")
    assert await files.get("a", record.id) == (record, DATA)


async def test_another_clients_id_is_not_found_and_their_delete_leaves_the_bytes(
    store: Store, tmp_path: Path
) -> None:
    files = files_on(store, tmp_path / "files")
    record = await files.put("a", DATA, "application/pdf", "r.pdf")
    assert await files.get("b", record.id) is None
    assert await files.open("b", record.id) is None
    assert not await files.delete("b", record.id)
    assert (tmp_path / "files" / record.id).exists()
    assert await files.delete("a", record.id)
    assert names(tmp_path / "files") == []
    assert await files.get("a", record.id) is None


async def test_a_stream_past_the_cap_keeps_nothing_not_even_a_temp_file_or_a_record(
    store: Store, tmp_path: Path
) -> None:
    files = files_on(store, tmp_path / "files")
    at_cap = await files.put_stream("a", chunks_of(b"x" * 1000, 7), "text/plain", None, 1000)
    over = await files.put_stream("a", chunks_of(b"x" * 1001, 7), "text/plain", None, 1000)
    assert at_cap is not None and at_cap.size == 1000
    assert over is None
    assert names(tmp_path / "files") == [at_cap.id]


async def test_an_empty_file_has_a_record_and_nothing_on_disk(store: Store, tmp_path: Path) -> None:
    files = files_on(store, tmp_path / "files")
    record = await files.put("a", b"", "application/octet-stream", None)
    assert names(tmp_path / "files") == []
    assert await files.get("a", record.id) == (record, b"")


async def test_the_sweep_removes_expired_files_and_bytes_no_record_names_once_past_the_grace(
    store: Store, tmp_path: Path
) -> None:
    folder = tmp_path / "files"
    files = files_on(store, folder, ttl=60)
    expired = await files.put("a", b"old bytes", "text/plain", None)
    long_lived = files_on(store, folder, ttl=10 * HOUR)
    alive = await long_lived.put("a", b"kept bytes", "text/plain", None)
    orphan, young_orphan = new_file_id(), new_file_id()
    (folder / orphan).write_bytes(b"left by a crash before its record")
    (folder / (TEMP + "abandoned")).write_bytes(b"half an upload")
    (folder / "README.txt").write_text("not the gateway's")
    later = time.time() + GRACE + 120
    (folder / young_orphan).write_bytes(b"an upload storing its record right now")
    os.utime(folder / young_orphan, (later, later))
    records, blobs = await files.sweep(later)
    assert records == (0 if store.name.startswith("redis") else 1)  # Redis forgets records by TTL
    assert blobs == 3  # the expired file's bytes, the orphan, the temp file
    assert names(folder) == sorted([alive.id, young_orphan, "README.txt"])
    assert await long_lived.get("a", alive.id) == (alive, b"kept bytes")
    assert await files.get("a", expired.id) is None


async def test_two_gateways_on_one_store_and_one_folder_share_files(store: Store, tmp_path: Path) -> None:
    one, other = files_on(store, tmp_path / "files"), files_on(store, tmp_path / "files")
    record = await one.put("a", DATA, "image/png", "me.png")
    assert await other.get("a", record.id) == (record, DATA)
    assert await other.delete("a", record.id)
    assert await one.get("a", record.id) is None


async def test_bytes_missing_from_the_folder_read_as_not_found(store: Store, tmp_path: Path) -> None:
    files = files_on(store, tmp_path / "files")
    record = await files.put("a", DATA, "image/png", None)
    (tmp_path / "files" / record.id).unlink()  # another instance's own folder, or removed by hand
    assert await files.get("a", record.id) is None


def test_only_an_id_of_the_gateways_own_form_becomes_a_path(tmp_path: Path) -> None:
    folder = FileFolder(str(tmp_path))
    good = new_file_id()
    assert folder.where(good) == tmp_path / good
    for hostile in ("../" + good, good + "/..", "f_" + "g" * 32, "/etc/passwd", good.upper(), good + "\x00"):
        with pytest.raises(ValueError):
            folder.where(hostile)


async def test_an_existing_folder_is_used_as_it_is(store: Store, tmp_path: Path) -> None:
    folder = tmp_path / "shared"
    folder.mkdir(mode=0o750)
    os.chmod(folder, 0o750)
    record = await files_on(store, folder).put("a", b"x", "text/plain", None)
    assert stat.S_IMODE(folder.stat().st_mode) == 0o750  # logged, not changed: the operator's to decide
    assert (folder / record.id).read_bytes() == b"x"


async def test_a_folder_removed_while_the_gateway_runs_is_made_again_on_the_next_file(
    store: Store, tmp_path: Path
) -> None:
    files = files_on(store, tmp_path / "files")
    first = await files.put("a", b"one", "text/plain", None)
    (tmp_path / "files" / first.id).unlink()
    (tmp_path / "files").rmdir()
    second = await files.put("a", b"two", "text/plain", None)
    assert stat.S_IMODE((tmp_path / "files").stat().st_mode) == 0o700
    assert await files.get("a", second.id) == (second, b"two")
    assert await files.get("a", first.id) is None
