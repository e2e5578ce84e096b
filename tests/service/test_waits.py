"""How long a call waits (service/_waits.py): a setting, cut so that what must follow still fits the
call's deadline."""

from __future__ import annotations

from specbridge.service._waits import MARGIN, Deadline


def test_a_wait_is_the_setting_or_what_the_deadline_leaves_after_what_must_follow() -> None:
    deadline = Deadline.after(60)
    assert deadline.wait(50) == 50
    assert 58 - 0.5 < deadline.wait(100) <= 60 - MARGIN
    assert 43 < deadline.wait(50, keep=16) <= 44  # an approved call keeps its upstream timeout and a margin
    assert Deadline.after(3).wait(60, keep=2.5 + 1) == 0  # nothing left: no wait at all, never negative
    assert Deadline.after(-5).left() < 0
