"""Fixtures every test folder shares: the real loopback upstream (tests/support/upstream.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.upstream import Upstream


@pytest.fixture
def upstream() -> Iterator[Upstream]:
    """An HTTP upstream on loopback, recording every request; stopped after the test."""
    with Upstream() as server:
        yield server
