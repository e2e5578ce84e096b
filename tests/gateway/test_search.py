"""The config's `search:` block as the gateway's search mode gets it (gateway/_search.py): its folders
relative to the config, vectors kept beside a SQLite store or in the user's cache, or nowhere."""

from __future__ import annotations

from pathlib import Path

from specbridge import load_config
from specbridge.gateway._search import search_settings
from specbridge.search import SearchSettings


def test_the_search_block_names_folders_relative_to_the_config_and_maps_to_search_settings(
    tmp_path: Path,
) -> None:
    path = tmp_path / "specbridge.yaml"
    path.write_text("search: {semantic: 'off', cache: vectors}\n", encoding="utf-8")
    config = load_config(path)
    assert config.search.cache == str((tmp_path / "vectors").resolve())
    settings = search_settings(config.search)
    assert settings == SearchSettings(
        semantic="off", model_dir=None, cache_dir=tmp_path.resolve() / "vectors"
    )


def test_without_a_search_cache_vectors_are_kept_beside_a_sqlite_store_else_in_the_users_cache(
    tmp_path: Path,
) -> None:
    path = tmp_path / "specbridge.yaml"
    path.write_text("search: {semantic: 'off'}\n", encoding="utf-8")
    config = load_config(path)  # the default store: .specbridge/state.db beside the config
    assert search_settings(config.search, config.store).cache_dir == (
        tmp_path.resolve() / ".specbridge" / "embeddings"
    )
    for elsewhere in ("postgresql://127.0.0.1/test", "redis://127.0.0.1:6379/0", "sqlite:///:memory:"):
        assert search_settings(config.search, elsewhere).cache_dir is None  # the user's cache folder
    path.write_text("search: {cache: ''}\nstore: sqlite:///state.db\n", encoding="utf-8")
    config = load_config(path)
    assert search_settings(config.search, config.store).cache_dir == ""  # said: keep nothing
