"""OpenAI strict mode's documented size limits, measured on a strict schema.

At most 5,000 object properties, 10 levels of nesting, 120,000 characters of property names, definition
names, enum values and const values, 1,000 enum values in all, and 15,000 characters for one enum of more
than 250 values. A level of nesting is an object or an array: the root object is level 1, and a `$ref`
counts as the levels of what it names, except a reference back into a cycle (recursion is allowed).
"""

from __future__ import annotations

from typing import Any

Json = Any

MAX_PROPERTIES = 5000
MAX_NESTING = 10
MAX_STRING_LENGTH = 120_000
MAX_ENUM_VALUES = 1000
LARGE_ENUM = 250
MAX_LARGE_ENUM_LENGTH = 15_000


def limit_broken(root: dict[str, Json]) -> str | None:
    """Which documented size limit a strict schema breaks (None: none), measured on the schema itself."""
    definitions: dict[str, Json] = root.get("$defs", {})
    properties = strings = enum_values = 0
    stack: list[Json] = [root]
    strings += sum(len(name) for name in definitions)
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
            continue
        if not isinstance(node, dict):
            continue
        if isinstance(node.get("properties"), dict):
            properties += len(node["properties"])
            strings += sum(len(name) for name in node["properties"])
            stack.extend(node["properties"].values())
        if isinstance(node.get("enum"), list):
            values = node["enum"]
            length = sum(len(str(value)) for value in values if value is not None)
            enum_values += len(values)
            strings += length
            if len(values) > LARGE_ENUM and length > MAX_LARGE_ENUM_LENGTH:
                return (
                    f"an enum has {len(values)} values of {length} characters; strict mode allows at most "
                    f"{MAX_LARGE_ENUM_LENGTH} characters for an enum of more than {LARGE_ENUM} values"
                )
        if "const" in node:
            strings += len(str(node["const"]))
        stack.extend(value for key, value in node.items() if key in ("items", "anyOf"))
        if isinstance(node.get("$defs"), dict):
            stack.extend(node["$defs"].values())
    if properties > MAX_PROPERTIES:
        return f"the schema has {properties} object properties (strict mode: {MAX_PROPERTIES})"
    if enum_values > MAX_ENUM_VALUES:
        return f"the schema has {enum_values} enum values (strict mode: {MAX_ENUM_VALUES})"
    if strings > MAX_STRING_LENGTH:
        return (
            f"the schema's names and values are {strings} characters long (strict mode: {MAX_STRING_LENGTH})"
        )
    levels = _Levels(definitions).of(root, frozenset())[0]
    if levels > MAX_NESTING:
        return f"the schema nests {levels} levels deep (strict mode: {MAX_NESTING})"

    return None


class _Levels:
    """The deepest chain of objects/arrays in a schema (the root object is level 1), following each
    `$ref` into its definition except back into a cycle, which strict mode allows."""

    def __init__(self, definitions: dict[str, Json]) -> None:
        self.definitions = definitions
        self.memo: dict[str, int] = {}

    def of(self, node: Json, path: frozenset[str]) -> tuple[int, bool]:
        """(levels, whether a cycle was cut on the way: such a result depends on `path`)."""
        if not isinstance(node, dict):
            return 0, False
        ref = node.get("$ref")
        if isinstance(ref, str):
            name = ref.removeprefix("#/$defs/")
            if name in self.memo:
                return self.memo[name], False
            if name in path or name not in self.definitions:
                return 0, name in path
            levels, cut = self.of(self.definitions[name], path | {name})
            if not cut:
                self.memo[name] = levels
            return levels, cut
        own = 1 if "properties" in node or "items" in node else 0
        deepest, cut = 0, False
        below = [*(node.get("properties") or {}).values(), *([node["items"]] if "items" in node else [])]
        for part in below:
            levels, part_cut = self.of(part, path)
            deepest, cut = max(deepest, own + levels), cut or part_cut
        for part in node.get("anyOf") or []:
            levels, part_cut = self.of(part, path)
            deepest, cut = max(deepest, levels), cut or part_cut
        return max(deepest, own), cut
