"""`store:` in specbridge.yaml (config/_store.py): a relative SQLite path is taken from the config's
folder, and the store's own `?timeout=` / `?connections=` are checked when the config is read."""

from __future__ import annotations

from pathlib import Path

import pytest

from specbridge import ConfigError, ErrorCode
from specbridge.config import config_from_data


def store_of(url: str) -> str:
    return config_from_data({"store": url}, source="specbridge.yaml", base_dir=Path("/srv/conf")).store


def test_the_store_url_keeps_its_own_parameters_and_a_relative_sqlite_path_is_made_absolute() -> None:
    assert store_of("sqlite:///state/s.db?timeout=2s") == "sqlite:////srv/conf/state/s.db?timeout=2s"
    assert store_of("redis://cache:6379/0?timeout=500ms&connections=20") == (
        "redis://cache:6379/0?timeout=500ms&connections=20"
    )


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("redis://cache?timeout=0", "?timeout= must be seconds above 0 and at most 300"),
        ("postgresql://db/app?timeout=5m", "?timeout= must be seconds"),
        ("postgresql://db/app?connections=0", "?connections= must be a whole number from 1 to 1000"),
        ("redis://cache?connections=1e3", "?connections= must be a whole number"),
    ],
)
def test_a_mistyped_store_parameter_is_a_config_error_naming_the_key(url: str, says: str) -> None:
    with pytest.raises(ConfigError) as caught:
        store_of(url)
    assert caught.value.code is ErrorCode.CONFIG_INVALID
    assert says in caught.value.message and "store" in str(caught.value)
