"""The config the approvals command-line tests run on: one API and a SQLite store in a folder of its
own, with no gateway running."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def config_path(tmp_path: Path) -> Path:
    path = tmp_path / "specbridge.yaml"
    path.write_text(
        "apis: {shop: {spec: shop.yaml}}\nstore: sqlite:///state/approvals.db\n", encoding="utf-8"
    )
    return path
