"""What an MCP client is told: the well-known URL of a resource's metadata (RFC 9728 §3.1), the metadata
document, and challenges whose values a client can parse whatever the message says."""

from __future__ import annotations

import pytest

from specbridge.access import challenge, metadata_url, resource_metadata
from specbridge.config import OAuthConfig


@pytest.mark.parametrize(
    ("resource", "url"),
    [
        (
            "https://mcp.example.com/shop/mcp",
            "https://mcp.example.com/.well-known/oauth-protected-resource/shop/mcp",
        ),
        ("https://mcp.example.com", "https://mcp.example.com/.well-known/oauth-protected-resource"),
        ("http://127.0.0.1:8000/mcp", "http://127.0.0.1:8000/.well-known/oauth-protected-resource/mcp"),
    ],
)
def test_the_metadata_url_inserts_the_well_known_name_before_the_path(resource: str, url: str) -> None:
    assert metadata_url(resource) == url


def test_the_metadata_names_the_resource_its_issuer_its_scopes_and_header_tokens_only() -> None:
    settings = OAuthConfig(issuer="https://auth.example.com", scopes_supported=("mcp:tools",))
    assert resource_metadata("https://mcp.example.com/shop/mcp", settings) == {
        "resource": "https://mcp.example.com/shop/mcp",
        "authorization_servers": ["https://auth.example.com"],
        "scopes_supported": ["mcp:tools"],
        "bearer_methods_supported": ["header"],
    }


def test_without_scopes_the_metadata_leaves_them_out() -> None:
    assert "scopes_supported" not in resource_metadata(
        "https://m.example/mcp", OAuthConfig(issuer="https://a.example")
    )


def test_a_description_cannot_break_out_of_its_quotes() -> None:
    value = challenge(
        "https://m.example/mcp", error="invalid_token", description='it said "no" \\ here\nand é'
    )
    assert value.endswith('error_description="it said no  hereand "')
    assert value.count('"') == 6
