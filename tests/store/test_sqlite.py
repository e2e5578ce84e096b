"""`store/_sqlite.py`: the SQLite store is private to the gateway's user. A folder it makes is 0700, the
database and its -wal and -shm files 0600, whatever the umask; an existing store that others may read is
used as it is and logged as a warning when the store starts."""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from specbridge.store import open_store


@pytest.fixture
def open_umask() -> Iterator[None]:
    """The common umask, under which files are created 0644 and folders 0755 unless asked otherwise."""
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.usefixtures("open_umask")
async def test_a_new_store_is_readable_by_its_own_user_only(tmp_path: Path) -> None:
    path = tmp_path / "state" / "state.db"
    async with open_store(f"sqlite:///{path}") as store:
        await store.expire_due(0.0)  # a write: the -wal and -shm files exist while the store is open
        files = [path, path.with_name("state.db-wal"), path.with_name("state.db-shm")]
        modes = {one.name: mode(one) for one in files}
    assert mode(path.parent) == 0o700
    assert modes == {"state.db": 0o600, "state.db-wal": 0o600, "state.db-shm": 0o600}


@pytest.mark.usefixtures("open_umask")
async def test_an_existing_store_others_can_read_is_logged_at_start(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "state.db"
    async with open_store(f"sqlite:///{path}"):
        pass
    path.chmod(0o644)  # as an older specbridge left it
    with caplog.at_level(logging.WARNING, logger="specbridge.gateway"):
        async with open_store(f"sqlite:///{path}"):
            pass
    warned = [record for record in caplog.records if record.getMessage() == "store open to others"]
    assert len(warned) == 1
    assert warned[0].fields == {"file": str(path), "mode": "0o644"}  # type: ignore[attr-defined]
    assert mode(path) == 0o644  # the operator's modes are left as they are
