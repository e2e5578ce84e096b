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


def dumps_bytes(value: Any, *, indent: bool = False) -> bytes:
    try:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2 if indent else 0)
    except TypeError:
        return json.dumps(value, indent=2 if indent else None, ensure_ascii=False).encode("utf-8")
