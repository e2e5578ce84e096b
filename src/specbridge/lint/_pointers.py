"""JSON pointers into the document's data: walking them without raising, escaping tokens."""

from __future__ import annotations

from typing import Any


def escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def tokens(pointer: str) -> list[str]:
    if not pointer or pointer == "/":
        return []
    return [raw.replace("~1", "/").replace("~0", "~") for raw in pointer[1:].split("/")]


def nodes_along(data: Any, pointer: str) -> list[Any]:
    """Every node from the root to the one the pointer names (fewer when the pointer leaves the data)."""
    found = [data]
    node = data
    for token in tokens(pointer):
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            break
        found.append(node)
    return found


def walk(data: Any, pointer: str) -> Any | None:
    path = nodes_along(data, pointer)
    return path[-1] if len(path) == len(tokens(pointer)) + 1 else None
