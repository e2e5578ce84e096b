"""`store:` in specbridge.yaml (config/_store.py): a relative SQLite path is taken from the config's
folder, and the store's own `?timeout=` / `?connections=` are checked when the config is read; `sessions:` is
`store` by default on a store several instances share."""

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


@pytest.mark.parametrize(
    ("data", "sessions"),
    [
        ({}, "memory"),
        ({"store": "sqlite:///state.db"}, "memory"),
        ({"store": "postgresql://db/app"}, "store"),
        ({"store": "redis://cache:6379/0"}, "store"),
        ({"store": "rediss://cache:6379/0", "sessions": "memory"}, "memory"),
        ({"store": "sqlite:///state.db", "sessions": "store"}, "store"),
    ],
)
def test_sessions_are_in_the_store_by_default_when_the_store_is_one_instances_share(
    data: dict[str, str], sessions: str
) -> None:
    assert config_from_data(data, source="specbridge.yaml", base_dir=Path("/srv/conf")).sessions == sessions


def test_sessions_other_than_store_or_memory_are_a_config_error() -> None:
    with pytest.raises(ConfigError) as caught:
        config_from_data({"sessions": "sticky"}, source="specbridge.yaml")
    assert caught.value.code is ErrorCode.CONFIG_INVALID
    assert "sessions" in str(caught.value) and "store" in caught.value.message
