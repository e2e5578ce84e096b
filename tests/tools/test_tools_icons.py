"""Tool icons from the document's logo (`info.x-logo`, SEP-973): what a client may show safely, nothing
else."""

from __future__ import annotations

import pytest

from specbridge.tools import export_mcp
from tests.support.openapi import toolset

BODY = """
paths:
  /a: {get: {operationId: a, responses: {'200': {description: OK}}}}
  /b: {get: {operationId: b, responses: {'200': {description: OK}}}}
"""
PNG_DATA = "data:image/png;base64,iVBORw0KGgo="


def _icons(logo: str) -> list[object]:
    header = f"openapi: 3.1.0\ninfo: {{title: Test, version: '1', x-logo: {logo}}}\n"
    return [entry.get("icons") for entry in export_mcp(toolset(BODY, header=header))["tools"]]


@pytest.mark.parametrize(
    ("logo", "icon"),
    [
        (
            "{url: 'https://example.com/logo.png', altText: Shop}",
            {"src": "https://example.com/logo.png", "mimeType": "image/png"},
        ),
        ("'https://cdn.example.com/brand/logo'", {"src": "https://cdn.example.com/brand/logo"}),
        (f"{{url: '{PNG_DATA}'}}", {"src": PNG_DATA, "mimeType": "image/png"}),
    ],
)
def test_every_tool_of_a_document_with_a_logo_carries_it_as_its_icon(logo: str, icon: dict[str, str]) -> None:
    assert _icons(logo) == [[icon], [icon]]


@pytest.mark.parametrize(
    "logo",
    [
        "{url: 'http://example.com/logo.png'}",  # not https
        "{url: 'https://user:pw@example.com/logo.png'}",  # credentials in the URL
        "{url: 'https://example.com/logo.svg'}",  # SVG can carry script
        "{url: 'data:image/svg+xml;base64,PHN2Zz4='}",
        "{url: 'data:text/html,<script>alert(1)</script>'}",
        "{url: '/static/logo.png'}",  # relative: no base a client knows
        "{url: 'javascript:alert(1)'}",
        "{url: 42}",
        "[]",
    ],
)
def test_a_logo_a_client_could_not_show_safely_gives_no_icon(logo: str) -> None:
    assert _icons(logo) == [None, None]


def test_a_data_uri_logo_over_64_kb_gives_no_icon() -> None:
    big = "data:image/png;base64," + "A" * (64 * 1024)
    assert _icons(f"{{url: '{big}'}}") == [None, None]


def test_a_document_without_a_logo_gives_no_icons() -> None:
    assert [entry.get("icons") for entry in export_mcp(toolset(BODY))["tools"]] == [None, None]
