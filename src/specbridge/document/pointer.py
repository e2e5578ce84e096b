"""JSON pointers (RFC 6901): the one place tokens are escaped (`~0` for `~`, `~1` for `/`) and unescaped,
and pointers are built, split and walked. Public: lint positions, `$ref`s, `$defs` names all use it."""

from __future__ import annotations

from typing import Any


def escape_token(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def unescape_token(token: str) -> str:
    """`~1` is `/` and `~0` is `~`, undone in that order so `~01` stays `~1`."""
    return token.replace("~1", "/").replace("~0", "~")


def pointer_of(*tokens: str) -> str:
    return "".join("/" + escape_token(token) for token in tokens)


def pointer_tokens(pointer: str) -> list[str]:
    """The unescaped tokens of `pointer`; `""` and `"/"` both name the root here."""
    if not pointer or pointer == "/":
        return []
    return [unescape_token(raw) for raw in pointer[1:].split("/")]


def walk_pointer(root: Any, pointer: str) -> Any:
    """The node `pointer` names; KeyError when it leaves the data or does not start with `/`."""
    if pointer not in ("", "/") and not pointer.startswith("/"):
        raise KeyError(pointer)
    node = root
    for token in pointer_tokens(pointer):
        if isinstance(node, dict):
            node = node[token]
        elif isinstance(node, list) and token.isdigit():
            node = node[int(token)]
        else:
            raise KeyError(pointer)
    return node


def nodes_along(data: Any, pointer: str) -> list[Any]:
    """Every node from the root to the one the pointer names (fewer when the pointer leaves the data)."""
    found = [data]
    node = data
    for token in pointer_tokens(pointer):
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            break
        found.append(node)
    return found


def find_pointer(data: Any, pointer: str) -> Any | None:
    """The node `pointer` names, or None when it leaves the data (never raises)."""
    path = nodes_along(data, pointer)
    return path[-1] if len(path) == len(pointer_tokens(pointer)) + 1 else None
