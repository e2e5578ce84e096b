"""Which operations become tools, their descriptions, titles and hints."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from specbridge.tools import ConvertOptions, ToolOverride
from tests.support.openapi import only_tool, toolset

DEPRECATED = """
paths:
  /old:
    get:
      operationId: oldSearch
      summary: Search the old way.
      deprecated: true
      responses:
        '200':
          description: ok
          headers:
            Sunset: {schema: {type: string, example: 'Sat, 01 Nov 2025 00:00:00 GMT'}}
  /new:
    get: {operationId: newSearch, responses: {'200': {description: ok}}}
"""


def test_deprecated_operations_are_left_out_by_default() -> None:
    tools = toolset(DEPRECATED)
    assert [tool.name for tool in tools.tools] == ["newSearch"]
    assert [operation.operation_id for operation in tools.skipped_deprecated] == ["oldSearch"]


def test_include_deprecated_keeps_them_with_the_deprecation_and_sunset_first() -> None:
    tools = toolset(DEPRECATED, ConvertOptions(include_deprecated=True))
    old = tools.get("oldSearch")
    assert old is not None
    assert old.description.startswith("DEPRECATED (sunset Sat, 01 Nov 2025 00:00:00 GMT).")
    assert tools.skipped_deprecated == ()


def test_an_x_sunset_date_is_written_too() -> None:
    tool = only_tool(
        "paths:\n  /a:\n    get: {deprecated: true, x-sunset: '2026-01-01', responses: {'200': {description: ok}}}\n",
        ConvertOptions(include_deprecated=True),
    )
    assert tool.description.startswith("DEPRECATED (sunset 2026-01-01).")


def test_the_title_is_a_short_summary_and_the_description_says_what_comes_back() -> None:
    tool = only_tool(
        """
        paths:
          /pets/{id}:
            get:
              summary: Get a pet.
              description: Looks a pet up by its id.
              responses:
                '200':
                  description: The pet.
                  content: {application/json: {schema: {type: object}}}
                '404': {description: No such pet.}
                default: {description: Something else.}
        """
    )
    assert tool.title == "Get a pet"
    assert tool.description == (
        "Get a pet.\n\nLooks a pet up by its id.\n\nReturns 200: The pet (JSON). Errors: 404, default."
    )


def test_a_long_summary_is_no_title() -> None:
    tool = only_tool(
        f"paths:\n  /a:\n    get: {{summary: '{'word ' * 30}', responses: {{'200': {{description: ok}}}}}}\n"
    )
    assert tool.title is None


def test_an_operation_with_nothing_to_say_is_described_by_method_and_path() -> None:
    assert only_tool("paths:\n  /a:\n    get: {responses: {}}\n").description == "GET /a"


def test_a_configured_description_replaces_the_document_s() -> None:
    tool = only_tool(
        "paths:\n  /a:\n    get: {operationId: a, summary: S, responses: {'200': {description: ok}}}\n",
        ConvertOptions(overrides={"a": ToolOverride(description="Ask the customer first.")}),
    )
    assert tool.description == "Ask the customer first."


@pytest.mark.parametrize(
    ("method", "read_only", "destructive", "idempotent"),
    [
        ("get", True, False, True),
        ("head", True, False, True),
        ("options", True, False, True),
        ("post", False, False, False),
        ("put", False, True, True),
        ("patch", False, True, False),
        ("delete", False, True, True),
    ],
)
def test_hints_follow_the_method_and_are_all_set(
    method: str, read_only: bool, destructive: bool, idempotent: bool
) -> None:
    tool = only_tool(f"paths:\n  /a:\n    {method}: {{responses: {{'200': {{description: ok}}}}}}\n")
    hints = tool.hints
    assert (hints.read_only, hints.destructive, hints.idempotent, hints.open_world) == (
        read_only,
        destructive,
        idempotent,
        True,
    )


@settings(max_examples=300, deadline=None)
@given(text=st.text(st.sampled_from("ab .!?\n"), max_size=400), limit=st.integers(2, 300))
def test_a_shortened_text_fits_its_limit_and_is_the_text_itself_when_that_fits(text: str, limit: int) -> None:
    from specbridge.tools._describe import shorten_text

    shortened = shorten_text(text, limit)
    assert len(shortened) <= limit
    if len(text) <= limit:
        assert shortened == text
    else:
        assert shortened.endswith("…")
        assert text.startswith(shortened[:-1])
