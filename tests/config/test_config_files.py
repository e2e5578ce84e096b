"""`files:` in specbridge.yaml: defaults, sizes with units, durations, and what is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from specbridge import ConfigError, ErrorCode
from specbridge.config import Config, FilesConfig, config_from_data


def read(data: object) -> Config:
    return config_from_data(data, source="specbridge.yaml", base_dir=Path("/srv/conf"))


def test_without_the_key_files_are_kept_up_to_25_mb_for_a_day() -> None:
    assert read({"apis": {"orders": {"spec": "o.yaml"}}}).files == FilesConfig(
        max_bytes=25_000_000, ttl=86400.0
    )


@pytest.mark.parametrize(
    ("max_bytes", "expected"),
    [
        (1000, 1000),
        ("512kB", 512_000),
        ("25MB", 25_000_000),
        ("1GiB", 1024**3),
        (" 3 mib ", 3 * 1024**2),
        ("7", 7),
    ],
)
def test_a_size_is_bytes_or_a_number_with_a_unit(max_bytes: object, expected: int) -> None:
    config = read({"files": {"max_bytes": max_bytes, "ttl": "2h"}})
    assert config.files == FilesConfig(max_bytes=expected, ttl=7200.0)


@pytest.mark.parametrize(
    ("data", "key"),
    [
        ({"files": {"max_bytes": 0}}, "files.max_bytes"),
        ({"files": {"max_bytes": "25 furlongs"}}, "files.max_bytes"),
        ({"files": {"max_bytes": "0MB"}}, "files.max_bytes"),
        ({"files": {"ttl": 0}}, "files.ttl"),
        ({"files": {"folder": ""}}, "files.folder"),
        ({"files": {"folder": "  "}}, "files.folder"),
        ({"files": {"folder": 7}}, "files.folder"),
        ({"files": {"place": "/tmp"}}, "files"),
    ],
)
def test_a_wrong_files_value_is_refused_naming_its_key(data: dict[str, object], key: str) -> None:
    with pytest.raises(ConfigError) as raised:
        read(data)
    assert raised.value.code == ErrorCode.CONFIG_INVALID
    assert key in str(raised.value)


@pytest.mark.parametrize(
    ("folder", "expected"),
    [
        ("files", "/srv/conf/files"),
        ("./state/files/", "/srv/conf/state/files"),
        ("../shared/files", "/srv/shared/files"),
        ("/var/lib/specbridge/files", "/var/lib/specbridge/files"),
    ],
)
def test_a_files_folder_is_taken_from_the_configs_own_folder_like_the_sqlite_path(
    folder: str, expected: str
) -> None:
    assert read({"files": {"folder": folder}}).files == FilesConfig(folder=expected)
