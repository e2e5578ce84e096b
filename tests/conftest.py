"""Fixtures every test folder shares: the real loopback upstream (tests/support/upstream.py), and an API
credential in the environment as a config would name it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.upstream import Upstream


@pytest.fixture
def upstream() -> Iterator[Upstream]:
    """An HTTP upstream on loopback, recording every request; stopped after the test."""
    with Upstream() as server:
        yield server


SECRET = "s3cr3t-T0ken/with+chars="


@pytest.fixture
def secret_env(monkeypatch: pytest.MonkeyPatch) -> str:
    """`SECRET` in the environment; returns the config's reference to it."""
    monkeypatch.setenv("SPECBRIDGE_TEST_SECRET", SECRET)
    return "env:SPECBRIDGE_TEST_SECRET"
