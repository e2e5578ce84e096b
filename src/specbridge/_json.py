"""JSON out: orjson for speed, the standard library for what orjson refuses (integers past 64 bits)."""

from __future__ import annotations

import json
from typing import Any

import orjson


def dumps(value: Any, *, indent: bool = False) -> str:
    try:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2 if indent else 0).decode("utf-8")
    except TypeError:
        return json.dumps(value, indent=2 if indent else None, ensure_ascii=False)


def dumps_bytes(value: Any, *, indent: bool = False, sort_keys: bool = False) -> bytes:
    """`sort_keys`: every object's keys in order, so equal JSON gives equal bytes (a canonical form)."""
    option = (orjson.OPT_INDENT_2 if indent else 0) | (orjson.OPT_SORT_KEYS if sort_keys else 0)
    try:
        return orjson.dumps(value, option=option)
    except TypeError:
        text = json.dumps(value, indent=2 if indent else None, ensure_ascii=False, sort_keys=sort_keys)
        return text.encode("utf-8")
