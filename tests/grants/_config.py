"""An API config of the grants tests, read as a config file is (its store key from the environment the
`store_key` fixture of conftest.py sets)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from specbridge.config import ApiConfig, config_from_data


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
