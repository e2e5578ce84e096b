"""grants/ on real parts: each store backend (`store_url`, tests/support/stores.py) and glewlwyd as
the token endpoint and consent page (tests/support/oauth_api.py)."""

from __future__ import annotations

import pytest

from tests.support.oauth_api import STORE_KEY
from tests.support.stores import namespaces, store, store_url

__all__ = ["namespaces", "store", "store_url"]


@pytest.fixture(autouse=True)
def store_key(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("SPECBRIDGE_TEST_STORE_KEY", STORE_KEY)
    return STORE_KEY
