"""grants/ on real parts: each store backend (`store_url`, tests/store/_backends.py) and glewlwyd as
the token endpoint and consent page (tests/support/oauth_api.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from specbridge.config import ApiConfig, config_from_data
from tests.store._backends import namespaces, store, store_url
from tests.support.oauth_api import STORE_KEY

__all__ = ["namespaces", "store", "store_url"]


@pytest.fixture(autouse=True)
def store_key(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("SPECBRIDGE_TEST_STORE_KEY", STORE_KEY)
    return STORE_KEY


def api_config(
    tmp_path: Path, auth: dict[str, Any], *, allow: tuple[str, ...] = (), name: str = "shop"
) -> ApiConfig:
    """The API `name` with `auth` (its token endpoint's host under `allow`), read as a config is."""
    (tmp_path / "shop.yaml").write_text(
        "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths: {}\n", encoding="utf-8"
    )
    data = {
        "apis": {
            name: {
                "spec": str(tmp_path / "shop.yaml"),
                "base_url": "https://api.example.com",
                "egress": {"allow": list(allow)},
                "auth": auth,
            }
        },
        "store_key": "env:SPECBRIDGE_TEST_STORE_KEY",
    }
    return config_from_data(data, source="specbridge.yaml", base_dir=tmp_path).apis[name]
