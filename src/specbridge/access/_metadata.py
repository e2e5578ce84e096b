"""What an MCP client is told about an API that takes OAuth tokens: the Protected Resource Metadata
(RFC 9728) and the `WWW-Authenticate` challenges (RFC 6750, RFC 9728 §5.1) that point to it.

    GET /.well-known/oauth-protected-resource/orders/mcp
    {"resource": "https://mcp.example.com/orders/mcp",
     "authorization_servers": ["https://auth.example.com"],
     "scopes_supported": ["orders"], "bearer_methods_supported": ["header"]}

    401  WWW-Authenticate: Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-
         protected-resource/orders/mcp", scope="orders"
    403  WWW-Authenticate: Bearer error="insufficient_scope", scope="orders", resource_metadata="…"
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from ..config import OAuthConfig

WELL_KNOWN = "/.well-known/oauth-protected-resource"


def metadata_url(resource: str) -> str:
    """Where the metadata of `resource` is (RFC 9728 §3.1: the well-known name inserted before the path)."""
    parts = urlsplit(resource)
    path = parts.path.rstrip("/")
    return f"{parts.scheme}://{parts.netloc}{WELL_KNOWN}{path}"


def resource_metadata(resource: str, settings: OAuthConfig) -> dict[str, Any]:
    document: dict[str, Any] = {
        "resource": resource,
        "authorization_servers": [settings.issuer],
        "bearer_methods_supported": ["header"],
    }
    if settings.advertised_scopes:  # the scopes every token needs, then those that give tools
        document["scopes_supported"] = list(settings.advertised_scopes)
    return document


def _quoted(text: str) -> str:
    """A challenge parameter's value: RFC 6750 allows no `"` or `\\` in it, and only printable ASCII."""
    return "".join(ch for ch in text if " " <= ch <= "~" and ch not in '"\\')


def challenge(
    resource: str,
    scopes: tuple[str, ...] = (),
    *,
    error: str | None = None,
    description: str | None = None,
) -> str:
    """The `WWW-Authenticate` value of a 401 or 403: where the metadata is, which scopes to ask for
    and, for a token that was sent, what was wrong with it (no error code when none was sent)."""
    parts = [f'error="{error}"'] if error else []
    parts.append(f'resource_metadata="{metadata_url(resource)}"')
    if scopes:
        parts.append(f'scope="{_quoted(" ".join(scopes))}"')
    if description:
        parts.append(f'error_description="{_quoted(description)}"')
    return "Bearer " + ", ".join(parts)
