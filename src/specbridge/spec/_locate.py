"""Where a JSON pointer sits in a document's text: line and column, 1-based, for messages and findings.

A line-and-indentation walk, good for block YAML and pretty-printed JSON (what API documents are);
it answers None rather than guess when it cannot follow the text.
"""

from __future__ import annotations

import re

from ._refs import walk_pointer  # noqa: F401 - re-exported for callers that need both

_LIST_ITEM = re.compile(r"^(\s*)-(\s+|$)")


def _tokens(pointer: str) -> list[str]:
    if not pointer or pointer == "/":
        return []
    return [raw.replace("~1", "/").replace("~0", "~") for raw in pointer[1:].split("/")]


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _key_pattern(token: str) -> re.Pattern[str]:
    escaped = re.escape(token)
    return re.compile(rf"^\s*(?:-\s+)?(?:{escaped}|\"{escaped}\"|'{escaped}')\s*:(?:\s|$)")


def locate(text: str, pointer: str) -> tuple[int, int] | None:
    """(line, column) of the key or item the pointer names, or None when the text cannot be followed."""
    if not text:
        return None
    lines = text.splitlines()
    tokens = _tokens(pointer)
    if not tokens:
        return (1, 1)
    start, parent_indent = 0, -1
    position: tuple[int, int] | None = None
    for token in tokens:
        found = None
        if token.isdigit():
            found = _find_item(lines, start, parent_indent, int(token))
        if found is None:
            found = _find_key(lines, start, parent_indent, token)
        if found is None:
            return None
        index, column = found
        position = (index + 1, column + 1)
        start, parent_indent = index + 1, column - 1 if lines[index][column - 2 : column] == "- " else column
        if lines[index].lstrip().startswith("- ") and not token.isdigit():
            parent_indent = column
    return position


def _find_key(lines: list[str], start: int, parent_indent: int, token: str) -> tuple[int, int] | None:
    pattern = _key_pattern(token)
    for index in range(start, len(lines)):
        line = lines[index]
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        indent = _indent(line)
        if indent <= parent_indent and not stripped.startswith(("}", "]")):
            return None
        if pattern.match(line):
            column = indent + (
                len(line[indent:]) - len(line[indent:].lstrip("- ")) if stripped.startswith("- ") else 0
            )
            return index, column
    return None


def _find_item(lines: list[str], start: int, parent_indent: int, wanted: int) -> tuple[int, int] | None:
    count = -1
    item_indent = None
    for index in range(start, len(lines)):
        line = lines[index]
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        indent = _indent(line)
        if indent < parent_indent or (indent == parent_indent and not stripped.startswith("-")):
            return None
        match = _LIST_ITEM.match(line)
        if match and (item_indent is None or indent == item_indent):
            item_indent = indent
            count += 1
            if count == wanted:
                return index, indent + 2
    return None
