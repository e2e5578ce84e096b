"""A tool's icons (MCP 2025-11-25+, SEP-973) from the document's logo: `info.x-logo` (ReDoc's extension,
an object with `url`, or the URL itself). Only what a client can show safely becomes an icon: an
`https:` URL without credentials in it, or a `data:` URI of a raster image (PNG, JPEG, GIF, WebP) of at
most 64 KB; SVG is left out (it can carry script), and so is a relative URL (no base a client knows)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

Json = Any
Icon = Mapping[str, str]
MAX_URL = 2048
MAX_DATA_URI = 64 * 1024
_RASTER = {"image/png", "image/jpeg", "image/gif", "image/webp"}
_BY_SUFFIX = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
}


def logo_icons(data: Json) -> tuple[Icon, ...]:
    """The document's logo as MCP icons (at most one), or none."""
    info = data.get("info") if isinstance(data, Mapping) else None
    logo = info.get("x-logo") if isinstance(info, Mapping) else None
    url = logo.get("url") if isinstance(logo, Mapping) else logo
    if not isinstance(url, str):
        return ()
    url = url.strip()
    if url.lower().startswith("data:"):
        kind = _data_uri_type(url)
        return ({"src": url, "mimeType": kind},) if kind is not None else ()
    if len(url) > MAX_URL or any(ord(char) < 33 or ord(char) == 127 for char in url):
        return ()
    try:
        parts = urlsplit(url)
        hostname = parts.hostname
    except ValueError:
        return ()
    if (
        parts.scheme.lower() != "https"
        or not hostname
        or parts.username is not None
        or parts.password is not None
    ):
        return ()
    path = parts.path.lower()
    if path.endswith(".svg"):
        return ()
    suffix = path[path.rfind(".") :] if "." in path.rsplit("/", 1)[-1] else ""
    kind = _BY_SUFFIX.get(suffix)
    return ({"src": url, "mimeType": kind} if kind is not None else {"src": url},)


def _data_uri_type(url: str) -> str | None:
    """The raster image type a `data:` URI declares, when it is one of those and small enough."""
    if len(url) > MAX_DATA_URI:
        return None
    head, comma, _ = url[5:].partition(",")
    kind = head.split(";", 1)[0].strip().lower()
    return kind if comma and kind in _RASTER else None
