"""Folders a config names (`ref_dirs`, `search.model`, `search.cache`) are read relative to the config's
own folder, and reach the document loader and search mode."""

from __future__ import annotations

from pathlib import Path

import pytest

from specbridge import ConfigError, load_config
from specbridge.gateway import Gateway

SPEC = """\
openapi: 3.1.0
info: {title: Shared refs, version: '1'}
paths:
  /things:
    post:
      operationId: createThing
      requestBody:
        content:
          application/json:
            schema: {$ref: '../shared/thing.yaml'}
      responses: {'201': {description: made}}
"""


def _layout(tmp_path: Path, ref_dirs: str) -> Path:
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "thing.yaml").write_text(
        "type: object\nproperties: {colour: {type: string}}\n", encoding="utf-8"
    )
    (tmp_path / "api").mkdir()
    (tmp_path / "api" / "openapi.yaml").write_text(SPEC, encoding="utf-8")
    config = tmp_path / "specbridge.yaml"
    config.write_text(
        f"apis:\n  things:\n    spec: api/openapi.yaml\n    base_url: https://api.example.com\n{ref_dirs}",
        encoding="utf-8",
    )
    return config


def test_ref_dirs_are_folders_relative_to_the_config(tmp_path: Path) -> None:
    config = load_config(_layout(tmp_path, "    ref_dirs: [shared]\n"))
    assert config.apis["things"].ref_dirs == (str((tmp_path / "shared").resolve()),)


@pytest.mark.parametrize(("ref_dirs", "colour_offered"), [("", False), ("    ref_dirs: [shared]\n", True)])
async def test_a_ref_outside_the_documents_folder_is_read_only_where_ref_dirs_allows_it(
    tmp_path: Path, ref_dirs: str, colour_offered: bool
) -> None:
    gateway = Gateway(load_config(_layout(tmp_path, ref_dirs)))
    await gateway.start()
    try:
        tool = gateway.state("things").toolset.get("createThing")
        assert tool is not None
        assert ("colour" in tool.input_schema.get("properties", {})) is colour_offered
    finally:
        await gateway.aclose()


def test_an_empty_search_cache_keeps_no_vectors(tmp_path: Path) -> None:
    path = tmp_path / "specbridge.yaml"
    path.write_text("search: {cache: ''}\n", encoding="utf-8")
    assert load_config(path).search.cache == ""


def test_a_misspelled_search_key_names_the_closest_one(tmp_path: Path) -> None:
    path = tmp_path / "specbridge.yaml"
    path.write_text("search: {semantik: 'on'}\n", encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert "semantic" in caught.value.message
