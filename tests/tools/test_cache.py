"""The conversion kept on disk (tools/_cache.py): used again only for the same bytes, options and build."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from specbridge.document import load_document
from specbridge.tools import ConversionCache, ConvertOptions, ToolOverride, convert
from specbridge.tools import _cache as cache_module

DOCUMENT = """\
openapi: 3.1.0
info: {title: Shop, version: "1"}
paths:
  /products/{id}:
    get:
      operationId: getProduct
      parameters:
        - {$ref: "./parameters.yaml#/id"}
      responses:
        "200": {description: The product}
"""
PARAMETERS = 'id: {name: id, in: path, required: true, schema: {type: string, description: "%s"}}\n'


@pytest.fixture
def document(tmp_path: Path) -> Path:
    (tmp_path / "parameters.yaml").write_text(PARAMETERS % "first")
    path = tmp_path / "shop.yaml"
    path.write_text(DOCUMENT)
    return path


@pytest.fixture
def conversions(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The documents the conversion itself ran on (a conversion read from the cache runs it on none)."""
    made: list[str] = []
    real = cache_module.parse_document

    def counting(*args: object, **kwargs: object) -> object:
        made.append(str(kwargs.get("source")))
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(cache_module, "parse_document", counting)
    return made


def description(cache: ConversionCache, path: Path, options: ConvertOptions | None = None) -> str:
    tool = cache.convert(str(path), options or ConvertOptions()).tools[0]
    return str(tool.input_schema["properties"]["id"]["description"])


def test_an_unchanged_document_is_read_back_as_it_was_converted(
    tmp_path: Path, document: Path, conversions: list[str]
) -> None:
    cache = ConversionCache(tmp_path / "cache")
    first = cache.convert(str(document), ConvertOptions())
    again = cache.convert(str(document), ConvertOptions())
    assert conversions == [str(document)]
    assert again.tools == first.tools
    assert again.tools == convert(load_document(document), ConvertOptions()).tools
    assert again.document.servers == first.document.servers and again.document.data == first.document.data


def test_a_changed_document_is_converted_again(
    tmp_path: Path, document: Path, conversions: list[str]
) -> None:
    cache = ConversionCache(tmp_path / "cache")
    cache.convert(str(document), ConvertOptions())
    document.write_text(DOCUMENT.replace("The product", "One product"))
    assert "One product" in cache.convert(str(document), ConvertOptions()).tools[0].description
    assert len(conversions) == 2


def test_a_changed_referenced_file_is_converted_again(
    tmp_path: Path, document: Path, conversions: list[str]
) -> None:
    cache = ConversionCache(tmp_path / "cache")
    assert description(cache, document) == "first"
    (tmp_path / "parameters.yaml").write_text(PARAMETERS % "second")
    assert description(cache, document) == "second"
    assert description(cache, document) == "second"
    assert len(conversions) == 2


def test_a_referenced_file_that_appears_makes_a_new_conversion(
    tmp_path: Path, document: Path, conversions: list[str]
) -> None:
    (tmp_path / "parameters.yaml").unlink()
    cache = ConversionCache(tmp_path / "cache")
    missing = cache.convert(str(document), ConvertOptions()).tools[0]
    assert "description" not in missing.input_schema["properties"]["id"]
    (tmp_path / "parameters.yaml").write_text(PARAMETERS % "back")
    assert description(cache, document) == "back"


def test_other_conversion_options_never_read_an_entry_of_others(tmp_path: Path, document: Path) -> None:
    cache = ConversionCache(tmp_path / "cache")
    cache.convert(str(document), ConvertOptions())
    renamed = ConvertOptions(overrides={"getProduct": ToolOverride(name="fetchProduct")})
    assert cache.convert(str(document), renamed).tools[0].name == "fetchProduct"
    assert cache.convert(str(document), ConvertOptions()).tools[0].name == "getProduct"


def test_an_entry_of_another_build_is_never_read(
    tmp_path: Path, document: Path, conversions: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = ConversionCache(tmp_path / "cache")
    cache.convert(str(document), ConvertOptions())
    monkeypatch.setattr(cache_module, "code_fingerprint", lambda: "another build")
    cache.convert(str(document), ConvertOptions())
    assert len(conversions) == 2


def test_a_torn_entry_is_converted_again(tmp_path: Path, document: Path, conversions: list[str]) -> None:
    cache = ConversionCache(tmp_path / "cache")
    cache.convert(str(document), ConvertOptions())
    (entry,) = (tmp_path / "cache").glob("*.pickle")
    entry.write_bytes(entry.read_bytes()[:100])
    assert description(cache, document) == "first"
    assert len(conversions) == 2
    assert not list((tmp_path / "cache").glob("*.tmp"))


def test_the_folder_may_be_deleted_at_any_time(tmp_path: Path, document: Path) -> None:
    cache = ConversionCache(tmp_path / "cache")
    cache.convert(str(document), ConvertOptions())
    for entry in (tmp_path / "cache").iterdir():
        entry.unlink()
    (tmp_path / "cache").rmdir()
    assert description(cache, document) == "first"
    assert list((tmp_path / "cache").glob("*.pickle"))


def test_the_folder_is_made_private(tmp_path: Path, document: Path) -> None:
    ConversionCache(tmp_path / "cache").convert(str(document), ConvertOptions())
    assert (tmp_path / "cache").stat().st_mode & 0o777 == 0o700


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="owners and modes are POSIX's")
def test_a_folder_others_may_write_to_is_never_read(
    tmp_path: Path, document: Path, conversions: list[str]
) -> None:
    cache = ConversionCache(tmp_path / "cache")
    cache.convert(str(document), ConvertOptions())
    (tmp_path / "cache").chmod(0o777)
    again = ConversionCache(tmp_path / "cache")
    assert description(again, document) == "first"
    assert len(conversions) == 2
    assert not again.private()


def test_without_a_folder_nothing_is_kept(tmp_path: Path, document: Path, conversions: list[str]) -> None:
    cache = ConversionCache(None)
    cache.convert(str(document), ConvertOptions())
    cache.convert(str(document), ConvertOptions())
    assert len(conversions) == 2
    assert not cache.private()


def test_the_default_folder_is_the_users_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from specbridge.tools import default_cache_folder

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert default_cache_folder() == tmp_path / "specbridge" / "conversions"
