"""Argument paths as messages show them: `body.items[2].qty`."""

from __future__ import annotations


def format_path(path: tuple[str | int, ...] | list[str | int]) -> str:
    """`("body", "items", 2, "qty")` -> `body.items[2].qty`; odd keys are quoted and cut."""
    if not path:
        return "arguments"
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            name = safe_key(part)
            out += f".{name}" if out else name
    return out


def safe_key(key: str) -> str:
    if key and len(key) <= 64 and key.replace("_", "").replace("-", "").isalnum() and key.isascii():
        return key
    shown = key[:40].encode("unicode_escape").decode("ascii").replace('"', '\\"')
    return f'["{shown}{"…" if len(key) > 40 else ""}"]'
