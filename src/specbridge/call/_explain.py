"""Why arguments fail a shaped schema: at most a few problems, found in time linear in their size.

jsonschema-rs's `iter_errors` builds every error of the whole instance before the first one is read,
each with a message that serialises its subschema; a union (`anyOf`) error carries the errors of every
branch as well. For an array of 10,000 objects under a 30-branch union that is 300,000 errors built and
thrown away (docs/history/benchmarks-speed.md). So the check asks the validator only `is_valid`, and when that says no,
this module walks down the schema and the value together:

- a node's own keywords (type, required, enum, bounds, format, additionalProperties: false) are checked
  with the node's children replaced by `true`, so the validator reports this level only;
- a child value is visited only when the child's schema says it is not valid (`is_valid`);
- a union that fails is one problem ("matches none of the allowed shapes"), its branches never expanded;
- the walk stops after `cap` problems.

Large arguments are asked `is_valid` in slices the same way (a container of at most SLICE values at a
time): the validator holds the GIL for the whole of one call, so one call on 10,000 items would stop every
other thread, the event loop included, for its whole length; between slices, the loop gets its turn.

Validators for subschemas are compiled when first needed and kept with the checker.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import jsonschema_rs

from ._paths import format_path, safe_key

Json = Any
Path = tuple[str | int, ...]
_CHILDREN = ("properties", "items", "prefixItems", "anyOf", "allOf")
SLICE = 256  # values given to the validator in one call, at most, once the arguments are large


class Explainer:
    """Validity in slices and problems of instances against one shaped schema (`root` compiled)."""

    def __init__(self, shaped: Json, root: Any) -> None:
        self._shaped = shaped
        self._whole: dict[int, Any] = {id(shaped): root}
        self._local: dict[int, Any] = {}
        self._union: dict[int, Any] = {}  # keyed by the id of a node in `shaped`, which outlives them
        self._run: dict[int, Any] = {}

    def explain(self, instance: Json, cap: int) -> tuple[list[str], bool] | None:
        """None when `instance` fits (asked of the validator in slices of at most SLICE values each);
        else up to `cap` messages, and whether the walk stopped at the cap (there may be more)."""
        walk = _Walk(self, instance)
        if walk.valid(self._shaped, instance):
            return None
        stopped = walk.visit(self._shaped, instance, (), cap)
        return walk.found, stopped

    def compiled(self, cache: str, key: Json, schema: Json) -> Any:
        table = {"whole": self._whole, "local": self._local, "union": self._union, "run": self._run}[cache]
        validator = table.get(id(key))
        if validator is None:
            validator = jsonschema_rs.Draft202012Validator(schema, validate_formats=True)
            table[id(key)] = validator
        return validator


class _Walk:
    """One instance walked with one schema. `weights` counts the values inside each container, so
    a container of at most SLICE values goes to the validator whole: the validator holds the GIL for
    the length of one call, and a call on a slice that small is short, whatever the schema."""

    def __init__(self, explainer: Explainer, instance: Json) -> None:
        self.explainer = explainer
        self.weights: dict[int, int] = {}
        self.found: list[str] = []
        _weigh(instance, self.weights)

    def whole(self, node: Json, value: Json) -> bool:
        return bool(self.explainer.compiled("whole", node, node).is_valid(value))

    def union_fits(self, node: Json, value: Json) -> bool:
        branches = node["anyOf"]
        if self.weights.get(id(value), 0) <= SLICE:
            return bool(self.explainer.compiled("union", branches, {"anyOf": branches}).is_valid(value))
        return any(self.valid(branch, value) for branch in branches)

    def valid(self, node: Json, value: Json) -> bool:
        if not isinstance(node, dict):
            return node is not False
        if self.weights.get(id(value), 0) <= SLICE:
            return self.whole(node, value)
        if not self.explainer.compiled("local", node, _local(node)).is_valid(value):
            return False
        if isinstance(node.get("anyOf"), list) and not self.union_fits(node, value):
            return False
        if not all(self.valid(branch, value) for branch in _list(node.get("allOf"))):
            return False
        if isinstance(value, list) and isinstance(node.get("items"), dict):
            return self.items_valid(node, value)
        return all(self.valid(child, item) for child, item, _ in _children(node, value, ()))

    def items_valid(self, node: Json, value: list[Json]) -> bool:
        """The items of a large array, in runs of at most SLICE values given to the validator at once
        (one call per item would cost more in Python than the check itself); a heavier item alone."""
        prefix = _list(node.get("prefixItems"))
        if not all(self.valid(child, item) for child, item in zip(prefix, value, strict=False)):
            return False
        items = node["items"]
        run = self.explainer.compiled("run", items, {"items": items})
        start, weight = len(prefix), 0
        for index in range(len(prefix), len(value)):
            item_weight = self.weights.get(id(value[index]), 1)
            if item_weight > SLICE:  # a heavy item: the run before it, then the item on its own
                if not _run_fits(run, value, start, index) or not self.valid(items, value[index]):
                    return False
                start, weight = index + 1, 0
            elif weight + item_weight > SLICE:  # the run is full: check it, start the next one here
                if not _run_fits(run, value, start, index):
                    return False
                start, weight = index, item_weight
            else:
                weight += item_weight
        return _run_fits(run, value, start, len(value))

    def visit(self, node: Json, value: Json, path: Path, cap: int) -> bool:
        """Add the problems of `value` at `path`; True once `cap` is reached."""
        found = self.found
        if node is False:
            return _add(found, f"{format_path(path)}: is not allowed here", cap)
        if not isinstance(node, dict):
            return False
        if path and self.valid(node, value):
            return False
        local = self.explainer.compiled("local", node, _local(node))
        wrong_type = False
        for error in local.iter_errors(value):
            wrong_type = wrong_type or type(error.kind).__name__ == "Type"
            if _add(found, describe(error, path), cap):
                return True
        if wrong_type:
            return False  # a string where an object belongs: its properties say nothing more
        no_branch = isinstance(node.get("anyOf"), list) and not self.union_fits(node, value)
        if no_branch and _add(found, f"{format_path(path)}: matches none of the allowed shapes", cap):
            return True
        if any(self.visit(branch, value, path, cap) for branch in _list(node.get("allOf"))):
            return True
        return any(self.visit(child, item, where, cap) for child, item, where in _children(node, value, path))


def _weigh(value: Json, weights: dict[int, int]) -> int:
    """The number of values in `value` (itself included); containers' counts go into `weights`."""
    if isinstance(value, dict):
        total = 1 + sum(_weigh(item, weights) for item in value.values())
    elif isinstance(value, list):
        total = 1 + sum(_weigh(item, weights) for item in value)
    else:
        return 1
    weights[id(value)] = total
    return total


def _run_fits(run: Any, value: list[Json], start: int, end: int) -> bool:
    return start >= end or bool(run.is_valid(value[start:end]))


def _list(value: Json) -> list[Json]:
    return value if isinstance(value, list) else []


def _add(found: list[str], message: str, cap: int) -> bool:
    if message not in found:
        found.append(message)
    return len(found) >= cap


def _local(node: Mapping[str, Json]) -> dict[str, Json]:
    """The node's own keywords: children become `true` (property names stay, for additionalProperties)."""
    out: dict[str, Json] = {key: value for key, value in node.items() if key not in _CHILDREN}
    properties = node.get("properties")
    if isinstance(properties, dict):
        out["properties"] = dict.fromkeys(properties, True)
    if isinstance(out.get("additionalProperties"), dict):
        out["additionalProperties"] = True
    return out


def _children(node: Mapping[str, Json], value: Json, path: Path) -> Iterator[tuple[Json, Json, Path]]:
    """(schema, value, path) of each child value the node describes, lazily (a walk stops early)."""
    if isinstance(value, dict):
        found = node.get("properties")
        properties: dict[str, Json] = found if isinstance(found, dict) else {}
        extra = node.get("additionalProperties")
        for key, item in value.items():
            if key in properties:
                yield properties[key], item, (*path, key)  # a `false` one is visited too
            elif isinstance(extra, dict):
                yield extra, item, (*path, key)
    elif isinstance(value, list):
        prefix = _list(node.get("prefixItems"))
        items = node.get("items")
        for index, item in enumerate(value):
            if index < len(prefix):
                yield prefix[index], item, (*path, index)
            elif isinstance(items, dict) or items is False:
                yield items, item, (*path, index)


def describe(error: Any, prefix: Path = ()) -> str:
    """Our message for one validator error: its kind and path, never its text (which quotes the value)."""
    kind = error.kind
    name = type(kind).__name__
    path = (*prefix, *error.instance_path)
    where = format_path(path)
    if name == "Required":
        prop = safe_key(str(kind.property))
        return f"{where + '.' if path else ''}{prop}: is required"
    if name == "AdditionalProperties":
        extras = ", ".join(safe_key(str(item)) for item in list(kind.unexpected)[:5])
        return f"{where}: has properties the tool does not take ({extras})"
    if name == "Type":
        types = [str(item) for item in kind.types] if hasattr(kind, "types") else []
        return f"{where}: must be {_a(types)}" if types else f"{where}: has the wrong type"
    if name == "Format":
        return f"{where}: must be a valid {kind.format}"
    return f"{where}: {_MESSAGES.get(name, 'is not valid for this tool')}"


def _a(types: list[str]) -> str:
    words = {
        "integer": "an integer",
        "object": "an object",
        "array": "an array",
        "string": "a string",
        "number": "a number",
        "boolean": "true or false",
        "null": "null",
    }
    return " or ".join(words.get(kind, kind) for kind in types)


_MESSAGES = {
    "Enum": "must be one of the listed values",
    "Constant": "must be the one fixed value",
    "MinLength": "is too short",
    "MaxLength": "is too long",
    "MinItems": "has too few items",
    "MaxItems": "has too many items",
    "Minimum": "is below the minimum",
    "Maximum": "is above the maximum",
    "ExclusiveMinimum": "is not above the minimum",
    "ExclusiveMaximum": "is not below the maximum",
    "AnyOf": "matches none of the allowed shapes",
    "FalseSchema": "is not allowed here",
    "AdditionalItems": "has more items than allowed",
}
