"""Whether two `oneOf` branches can be given to a model as strict-mode `anyOf` branches: no value the
model builds from one branch's strict form may match the other branch, since the API still checks the
document's `oneOf`."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Any

Json = Any


@dataclass(frozen=True, slots=True)
class Facts:
    """What decides whether two branches overlap: types, a pinned value of the whole branch, declared
    and required properties, whether it is closed, the values properties are pinned to, a pattern."""

    kinds: frozenset[str]
    values: frozenset[str] | None  # repr()s of the const/enum values
    declared: frozenset[str]
    required: frozenset[str]
    closed: bool
    pinned: dict[str, frozenset[str]]
    pattern: str | None


def exclusive(a: Facts, b: Facts) -> bool:
    """True when no value the model builds from one branch's strict form matches the other branch."""
    if a.kinds and b.kinds and not common_kinds(list(a.kinds), list(b.kinds)):
        return True
    if a.values is not None and b.values is not None and not a.values & b.values:
        return True
    if _outside(a.values, b.pattern) or _outside(b.values, a.pattern):
        return True
    for name in a.required & b.required:
        if name in a.pinned and name in b.pinned and not a.pinned[name] & b.pinned[name]:
            return True
    # A value the model builds from a strict branch has that branch's required keys and at most its
    # declared ones (optional ones it leaves null are dropped); it misses the other branch when that
    # branch requires a key it cannot have, or is closed and lacks a key it must have.
    return _misses(a, b) and _misses(b, a)


def _misses(made: Facts, other: Facts) -> bool:
    """True when no value built from `made`'s strict form can match `other`."""
    return bool(other.required - made.declared or (other.closed and made.required - other.declared))


def _outside(values: frozenset[str] | None, pattern: str | None) -> bool:
    """True when none of the (repr'd string) values matches the pattern."""
    if values is None or pattern is None:
        return False
    try:
        compiled = re.compile(pattern)
    except re.error:
        return False
    try:
        texts = [ast.literal_eval(value) for value in values]
    except (ValueError, SyntaxError):  # a value repr() cannot round-trip, such as inf
        return False
    return all(isinstance(text, str) and compiled.search(text) is None for text in texts)


def pinned_values(schema: Json) -> frozenset[str] | None:
    if not isinstance(schema, dict):
        return None
    if "const" in schema:
        return frozenset({repr(schema["const"])})
    if isinstance(schema.get("enum"), list):
        return frozenset(repr(value) for value in schema["enum"])
    return None


def kinds_of(schema: dict[str, Json]) -> list[str]:
    kinds = schema.get("type")
    if isinstance(kinds, str):
        return [kinds]
    return [kind for kind in kinds if isinstance(kind, str)] if isinstance(kinds, list) else []


def common_kinds(first: list[str], second: list[str]) -> list[str]:
    """The types both lists allow (an integer is a number too)."""
    common: list[str] = []
    for a in first:
        for b in second:
            kind = a if a == b else "integer" if {a, b} == {"integer", "number"} else None
            if kind is not None and kind not in common:
                common.append(kind)
    return common
