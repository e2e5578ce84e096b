"""A page session lives only as long as its admin keeps the key it signed in with, and its time: in one
process (`Sessions`) and in the store (`StoredSessions`, on every backend), where the store holds the
SHA-256 of the cookie's value, never the value, and a second instance on the same store sees the same."""

from __future__ import annotations

import hashlib
import logging

import pytest

from specbridge.admin._sessions import PageSessions, Sessions
from specbridge.admin._stored_sessions import StoredSessions
from specbridge.config import AdminConfig
from specbridge.store import Store, open_store

ALICE = AdminConfig("alice", "a" * 64)


def stored(store: Store, ttl: float = 60, clock: list[float] | None = None) -> StoredSessions:
    async def opened() -> Store:
        return store

    now = clock if clock is not None else [1_764_500_000.0]
    return StoredSessions(opened, ttl, clock=lambda: now[0])


@pytest.fixture(params=["process", "store"])
def kinds(request: pytest.FixtureRequest, store: Store) -> object:
    def make(ttl: float = 60, clock: list[float] | None = None) -> PageSessions:
        if request.param == "process":
            return Sessions(ttl, clock=(lambda: clock[0]) if clock is not None else (lambda: 0.0))
        return stored(store, ttl, clock)

    return make


async def test_a_session_is_found_while_its_admin_keeps_the_key_it_signed_in_with(kinds: object) -> None:
    sessions = kinds()  # type: ignore[operator]
    sid, opened = await sessions.open(ALICE)
    assert await sessions.get(sid, {"alice": ALICE}) == opened
    assert await sessions.get("guess", {"alice": ALICE}) is None
    assert await sessions.get(None, {"alice": ALICE}) is None


@pytest.mark.parametrize(
    ("admins", "why"),
    [({}, "admin removed"), ({"alice": AdminConfig("alice", "b" * 64)}, "admin key changed")],
)
async def test_a_removed_or_rekeyed_admin_ends_the_session_for_good(
    kinds: object, admins: dict[str, AdminConfig], why: str, caplog: pytest.LogCaptureFixture
) -> None:
    sessions = kinds()  # type: ignore[operator]
    sid, _ = await sessions.open(ALICE)
    with caplog.at_level(logging.INFO, logger="specbridge.gateway"):
        assert await sessions.get(sid, admins) is None
    assert await sessions.get(sid, {"alice": ALICE}) is None  # the old key coming back does not revive it
    (line,) = [r for r in caplog.records if r.getMessage() == "admin session ended"]
    assert line.fields == {"admin": "alice", "why": why, "via": "admin-page"}  # type: ignore[attr-defined]


async def test_a_session_expires_after_its_ttl(kinds: object) -> None:
    now = [1_764_500_000.0]
    sessions = kinds(60, now)  # type: ignore[operator]
    sid, _ = await sessions.open(ALICE)
    now[0] += 59
    assert await sessions.get(sid, {"alice": ALICE}) is not None
    now[0] += 1
    assert await sessions.get(sid, {"alice": ALICE}) is None


async def test_signing_out_ends_the_session(kinds: object) -> None:
    sessions = kinds()  # type: ignore[operator]
    sid, _ = await sessions.open(ALICE)
    await sessions.close(sid)
    assert await sessions.get(sid, {"alice": ALICE}) is None


async def test_the_store_keeps_the_hash_of_the_cookie_and_another_instance_sees_it(store_url: str) -> None:
    async with open_store(store_url) as one, open_store(store_url) as two:
        first, second = stored(one), stored(two)
        sid, opened = await first.open(ALICE)
        assert await one.get_session(sid, 1_764_500_000.0) is None
        record = await one.get_session(hashlib.sha256(sid.encode()).hexdigest(), 1_764_500_000.0)
        assert record is not None and record.owner == "alice" and sid not in str(record.data)
        assert opened.csrf not in str(record.data)
        assert await second.get(sid, {"alice": ALICE}) == opened
        await second.close(sid)
        assert await first.get(sid, {"alice": ALICE}) is None
