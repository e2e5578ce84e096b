"""`export()` from Python: a format or option that does not exist is a clear error, never a quiet
fallback to OpenAI's format or a silently ignored `strict=True`."""

from __future__ import annotations

from typing import Any

import pytest

import specbridge
from specbridge import ErrorCode, ExportError, export
from tests.support.examples import example_spec_path


@pytest.fixture(scope="module")
def shop() -> specbridge.ToolSet:
    return specbridge.convert(specbridge.load_document(example_spec_path()))


def test_an_unknown_format_is_an_export_error_naming_the_formats(shop: specbridge.ToolSet) -> None:
    fmt: Any = "yaml"
    with pytest.raises(ExportError) as caught:
        export(shop, fmt)
    assert caught.value.code == ErrorCode.EXPORT_INVALID
    assert "'yaml' is not an export format" in str(caught.value)
    assert "mcp, anthropic, openai" in str(caught.value)


def test_an_export_error_is_a_value_error_and_a_specbridge_error(shop: specbridge.ToolSet) -> None:
    fmt: Any = "OpenAI"
    with pytest.raises(ValueError):
        export(shop, fmt)
    with pytest.raises(specbridge.SpecbridgeError):
        export(shop, fmt)


@pytest.mark.parametrize("fmt", ["mcp", "anthropic"])
def test_strict_outside_openai_is_an_export_error(shop: specbridge.ToolSet, fmt: Any) -> None:
    with pytest.raises(ExportError, match="strict=True is OpenAI's strict mode"):
        export(shop, fmt, strict=True)


@pytest.mark.parametrize("fmt", ["mcp", "openai"])
def test_defer_loading_outside_anthropic_is_an_export_error(shop: specbridge.ToolSet, fmt: Any) -> None:
    with pytest.raises(ExportError, match="deferred loading"):
        export(shop, fmt, defer_loading=True)


def test_the_valid_combinations_still_export(shop: specbridge.ToolSet) -> None:
    assert export(shop, "openai", strict=True)[0]["function"]["strict"] in (True, False)
    assert export(shop, "anthropic", defer_loading=True)[0]["name"] == "tool_search_tool_bm25"
    assert "tools" in export(shop, "mcp")
