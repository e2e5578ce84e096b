"""A page session lives only as long as its admin keeps the key it signed in with, and its time."""

from __future__ import annotations

import logging

import pytest

from specbridge.admin._sessions import Sessions
from specbridge.config import AdminConfig

ALICE = AdminConfig("alice", "a" * 64)


def test_a_session_is_found_while_its_admin_keeps_the_key_it_signed_in_with() -> None:
    sessions = Sessions(60)
    sid, opened = sessions.open(ALICE)
    assert sessions.get(sid, {"alice": ALICE}) is opened
    assert sessions.get("guess", {"alice": ALICE}) is None


@pytest.mark.parametrize(
    ("admins", "why"),
    [({}, "admin removed"), ({"alice": AdminConfig("alice", "b" * 64)}, "admin key changed")],
)
def test_a_removed_or_rekeyed_admin_ends_the_session_for_good(
    admins: dict[str, AdminConfig], why: str, caplog: pytest.LogCaptureFixture
) -> None:
    sessions = Sessions(60)
    sid, _ = sessions.open(ALICE)
    with caplog.at_level(logging.INFO, logger="specbridge.gateway"):
        assert sessions.get(sid, admins) is None
    assert len(sessions) == 0
    assert sessions.get(sid, {"alice": ALICE}) is None  # the old key coming back does not revive it
    (line,) = [r for r in caplog.records if r.getMessage() == "admin session ended"]
    assert line.fields == {"admin": "alice", "why": why, "via": "admin-page"}  # type: ignore[attr-defined]


def test_a_session_expires_after_its_ttl() -> None:
    now = [100.0]
    sessions = Sessions(60, clock=lambda: now[0])
    sid, _ = sessions.open(ALICE)
    now[0] += 59
    assert sessions.get(sid, {"alice": ALICE}) is not None
    now[0] += 1
    assert sessions.get(sid, {"alice": ALICE}) is None
