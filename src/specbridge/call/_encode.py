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


def deep_pairs(name: str, value: Json) -> list[tuple[str, str]]:
    """`deepObject` the way Stripe-style servers (Rack, PHP, qs) read it, to any depth: an object's
    keys as `a[b][c]=1`, an array of scalars as `a[]=x`, an array holding objects or arrays by index
    (`a[0][b]=1`, since `a[][b]` is ambiguous)."""
    if isinstance(value, dict):
        return [pair for key, item in value.items() for pair in deep_pairs(f"{name}[{key}]", item)]
    if isinstance(value, list):
        if all(not isinstance(item, dict | list) for item in value):
            return [(f"{name}[]", scalar(item)) for item in value]
        return [pair for index, item in enumerate(value) for pair in deep_pairs(f"{name}[{index}]", item)]
    return [(name, scalar(value))]
