"""What direction takes out of a shaped schema: the properties hidden in every declaration of them
(`readOnly` in an input, `writeOnly` in an answer), from an object and its inlined `allOf` parts."""

from __future__ import annotations

from typing import Any


def without_names(shaped: dict[str, Any], hidden: frozenset[str]) -> dict[str, Any]:
    """`shaped` (a new dict) without the properties `hidden` names, in its own `properties` and
    `required` and those of its inlined `allOf` parts. A part kept in `$defs` is shared and stays."""
    result = dict(shaped)
    properties = result.get("properties")
    if isinstance(properties, dict) and hidden & properties.keys():
        result["properties"] = {name: prop for name, prop in properties.items() if name not in hidden}
    required = result.get("required")
    if isinstance(required, list) and hidden.intersection(required):
        names = [name for name in required if name not in hidden]
        if names:
            result["required"] = names
        else:
            del result["required"]
    parts = result.get("allOf")
    if isinstance(parts, list):
        result["allOf"] = [
            without_names(part, hidden) if isinstance(part, dict) and "$ref" not in part else part
            for part in parts
        ]
    return result
