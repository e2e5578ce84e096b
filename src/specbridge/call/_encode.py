"""Small encoders shared by the request builder and the body encoders."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote as _quote

from .._errors import ErrorCode, RequestRefused
from .._json import dumps

Json = Any


def refuse(message: str, code: ErrorCode) -> RequestRefused:
    return RequestRefused(message + "; nothing was sent", code=code)


def quote(value: str) -> str:
    """Percent-encode everything but unreserved characters."""
    return _quote(value, safe="")


def scalar(value: Json) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**63:
        return str(int(value))  # JSON Schema counts 1.0 as an integer; a URL should say 1
    return dumps(value)


def name_key(name: str) -> str:
    """A parameter name as servers compare it at their most lenient: trimmed, case-insensitive."""
    return name.strip().lower()
