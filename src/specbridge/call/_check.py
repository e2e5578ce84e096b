"""The argument check: a real JSON Schema validator (jsonschema-rs) over a *shaped* schema that keeps
only the keywords specbridge promises to check (PRODUCT §4) and stops at depth 8.

Messages are built from the error's kind and path, never from the validator's text (which quotes the
value): `body.items[2].qty: must be an integer`.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from typing import Any

import jsonschema_rs
import orjson

from .._errors import ArgumentError
from ..document.pointer import unescape_token
from ._explain import Explainer
from ._paths import format_path as format_path
from ._result import CallResult

Json = Any
MAX_DEPTH = 8  # values nested deeper than this are left to the API
MAX_NESTING = 64  # ... but nothing nested deeper than this is sent at all
MAX_INTEGER = 2**64 - 1  # what a JSON number can carry between common implementations (uint64)
MIN_INTEGER = -(2**63)
MAX_PROBLEMS = 20  # a failed check names at most this many problems (finding them all costs more)
FORMATS = frozenset({"date-time", "date", "email", "uuid"})
_KEPT = frozenset(
    {
        "type",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "prefixItems",
        "enum",
        "const",
        "minLength",
        "maxLength",
        "minItems",
        "maxItems",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "anyOf",
        "allOf",
    }
)
_TOKENS = itertools.count(1)
_NODE_BUDGET = 20_000  # inlined `$ref`s stop growing the shaped schema past this many nodes


def shape(schema: Json, defs: Mapping[str, Json] | None = None) -> Json:
    """The schema reduced to the checked keywords, `$ref`s into `$defs` inlined down to depth 8, or
    less deep where unions of unions would pass the node budget: the levels kept are checked whole,
    so a budget spent deep in a union's first branch cannot leave its other branches (and with them
    the whole value) unchecked."""
    for levels in range(MAX_DEPTH, 0, -1):
        shaper = _Shaper(defs or {}, levels)
        shaped = shaper.node(schema, 0, frozenset())
        if shaper.nodes <= _NODE_BUDGET:
            return shaped
    return shaped  # even one level is over the budget (tens of thousands of properties): cut as it goes


class _Shaper:
    def __init__(self, defs: Mapping[str, Json], levels: int = MAX_DEPTH) -> None:
        self.defs = defs
        self.levels = levels
        self.nodes = 0

    def node(self, schema: Json, depth: int, seen: frozenset[str]) -> Json:
        if not isinstance(schema, dict):
            return schema if isinstance(schema, bool) else True
        self.nodes += 1
        if depth > self.levels or self.nodes > _NODE_BUDGET:
            return True
        ref = schema.get("$ref")
        if isinstance(ref, str):
            target = self._target(ref)
            if target is None or ref in seen:  # a `$ref` cycle that never descends
                return True
            shaped = self.node(target, depth, seen | {ref})
            siblings = {key: value for key, value in schema.items() if key != "$ref"}
            if not siblings.keys() & _KEPT:  # 2020-12 applies keywords beside a `$ref` too
                return shaped
            return {"allOf": [shaped, self.node(siblings, depth, seen)]}
        out: dict[str, Json] = {}
        for key, value in schema.items():
            if key == "oneOf":
                # Without `pattern` & co. two branches may both match; anyOf keeps the check sound.
                key = "anyOf"
            if key not in _KEPT and key != "anyOf":
                if key == "format" and value in FORMATS:
                    out["format"] = value
                continue
            if key == "properties" and isinstance(value, dict):
                out[key] = {name: self.node(sub, depth + 1, frozenset()) for name, sub in value.items()}
            elif key in ("items", "additionalProperties") and isinstance(value, dict | bool):
                out[key] = self.node(value, depth + 1, frozenset())
            elif key == "prefixItems" and isinstance(value, list):
                out[key] = [self.node(sub, depth + 1, frozenset()) for sub in value]
            elif key in ("anyOf", "allOf") and isinstance(value, list):
                out[key] = [self.node(sub, depth, seen) for sub in value]
            elif key in ("properties", "items", "additionalProperties", "prefixItems", "anyOf", "allOf"):
                continue
            else:
                out[key] = value
        return out

    def _target(self, ref: str) -> Json | None:
        for prefix in ("#/$defs/", "#/definitions/"):
            if ref.startswith(prefix):
                name = unescape_token(ref[len(prefix) :])
                return self.defs.get(name)
        return None


class Checker:
    """A compiled check for one tool's (bound-stripped) input schema."""

    def __init__(self, schema: Json) -> None:
        self.schema = schema  # what a worker process compiles the same check from (call/_offload.py)
        self.token = next(_TOKENS)  # names this check to a worker process, for the life of this one
        defs = schema.get("$defs", {}) if isinstance(schema, dict) else {}
        shaped = shape(schema, defs)
        self._shaped = shaped
        self._validator = jsonschema_rs.Draft202012Validator(shaped, validate_formats=True)
        self._explainer: Explainer | None = None  # made on the first check
        self._parts: dict[int, _Parts] = {}  # `_object_parts` of the nodes of `_shaped`, by id

    def drop_nulls(self, arguments: Mapping[str, Json]) -> dict[str, Json]:
        """Without the `null`s OpenAI strict mode sends for optional properties it leaves out (at any
        depth the schema describes); a `null` the schema requires stays and is checked."""
        if not _may_hold_null(arguments):
            return dict(arguments)
        value = _NullDropper(self._parts).drop(dict(arguments), self._shaped, 0)
        return value if isinstance(value, dict) else dict(arguments)

    def check(self, arguments: Mapping[str, Json]) -> None:
        """Raise ArgumentError naming every wrong path; never a value."""
        problems = _plain_json_problems(arguments)
        if problems:
            raise ArgumentError(problems)
        if self._explainer is None:
            self._explainer = Explainer(self._shaped, self._validator)
        explained = self._explainer.explain(arguments, MAX_PROBLEMS)
        if explained is None:
            return
        found, more = explained
        problems = sorted(found) or ["arguments: are not valid for this tool"]
        if more:
            problems.append(f"(the first {MAX_PROBLEMS} problems; there may be more)")
        raise ArgumentError(problems)


def argument_problem(checker: Checker, arguments: Mapping[str, Json]) -> CallResult | None:
    """What `checker` finds wrong with `arguments`, as the call's result (None: nothing): for the
    gateway's own tools (search mode's, code mode's), whose arguments are checked before they run."""
    try:
        checker.check(arguments)
    except ArgumentError as error:
        return CallResult(error.message, is_error=True, code=error.code)
    return None


_Parts = tuple[dict[str, Json], list[str]]


def _may_hold_null(arguments: Mapping[str, Json]) -> bool:
    """False when no value of `arguments` is null, found by orjson in C (the walk below costs a Python
    step per value and per union branch: most of a large check's time otherwise)."""
    try:
        return b"null" in orjson.dumps(arguments)
    except (TypeError, ValueError):  # not plain JSON: the check will say so; walk it the careful way
        return True


class _NullDropper:
    """One call's walk: `parts` is the checker's (per node), `fits` this call's (per union and key set:
    the branches that declare every key, so 10,000 items of one shape look at the branches once)."""

    def __init__(self, parts: dict[int, _Parts]) -> None:
        self.parts = parts
        self.fits: dict[tuple[int, frozenset[str]], list[tuple[Json, dict[str, Json]]]] = {}

    def drop(self, value: Json, schema: Json, depth: int) -> Json:
        if depth > MAX_DEPTH or not isinstance(schema, dict):
            return value
        if isinstance(value, dict):
            properties, required = _parts(schema, self.parts)
            if not properties:
                branch = self.fitting_branch(value, schema.get("anyOf"))
                return value if branch is None else self.drop(value, branch, depth)
            return {
                key: self.drop(item, properties.get(key), depth + 1)
                for key, item in value.items()
                if item is not None or key in required
            }
        if isinstance(value, list) and isinstance(schema.get("items"), dict):
            return [self.drop(item, schema["items"], depth + 1) for item in value]
        return value

    def fitting_branch(self, value: dict[str, Json], branches: Json) -> Json:
        """The first `anyOf` branch (a `oneOf` in the document) an object can be meant for: it declares
        every key given, and every pinned value (`const`, `enum`) given matches. Strict mode fills in a
        whole branch, nulls included, so the nulls are dropped by that branch's `required`."""
        if not isinstance(branches, list):
            return None
        keys = frozenset(value)
        candidates = self.fits.get((id(branches), keys))
        if candidates is None:
            candidates = []
            for branch in branches:
                properties, _ = _parts(branch, self.parts)
                if properties and keys <= properties.keys():
                    candidates.append((branch, properties))
            self.fits[(id(branches), keys)] = candidates
        for branch, properties in candidates:
            if all(_pinned_match(properties[key], item) for key, item in value.items() if item is not None):
                return branch
        return None


def _parts(schema: Json, memo: dict[int, _Parts]) -> _Parts:
    """`_object_parts`, worked out once per node of the (immutable) shaped schema."""
    found = memo.get(id(schema))
    if found is None:
        found = memo[id(schema)] = _object_parts(schema)
    return found


def _object_parts(schema: Json, depth: int = 0) -> _Parts:
    """An object schema's properties and required names, its `allOf` parts' included."""
    if not isinstance(schema, dict) or depth > MAX_DEPTH:
        return {}, []
    own = schema.get("properties")
    properties: dict[str, Json] = dict(own) if isinstance(own, dict) else {}
    names = schema.get("required")
    required: list[str] = list(names) if isinstance(names, list) else []
    for part in schema.get("allOf") or []:
        more, also = _object_parts(part, depth + 1)
        properties = {**more, **properties}
        required += also
    return properties, required


def _pinned_match(schema: Json, item: Json) -> bool:
    if not isinstance(schema, dict):
        return True
    if "const" in schema:
        return bool(schema["const"] == item)
    enum = schema.get("enum")
    return not isinstance(enum, list) or item in enum


def _plain_json_problems(arguments: Mapping[str, Json]) -> list[str]:
    """Values JSON cannot carry: NaN, Infinity, integers past 64 bits, non-JSON types, non-string keys,
    and strings with lone surrogates (they cannot be encoded as UTF-8 for the request)."""
    problems: list[str] = []
    stack: list[tuple[Json, tuple[str | int, ...]]] = [(dict(arguments), ())]
    while stack:
        value, path = stack.pop()
        if len(path) > MAX_NESTING:
            problems.append(
                f"{format_path(path[:MAX_NESTING])}: is nested more than {MAX_NESTING} levels deep"
            )
            break
        if isinstance(value, bool) or value is None:
            continue
        if isinstance(value, str):
            if not _is_text(value):
                problems.append(f"{format_path(path)}: is not valid Unicode text (a lone surrogate)")
            continue
        if isinstance(value, int):
            if not MIN_INTEGER <= value <= MAX_INTEGER:
                problems.append(f"{format_path(path)}: is a number too large to send")
        elif isinstance(value, float):
            if not math.isfinite(value):
                problems.append(f"{format_path(path)}: must be a finite number (not NaN or Infinity)")
        elif isinstance(value, dict):
            for key, item in value.items():
                if not isinstance(key, str):
                    problems.append(f"{format_path(path)}: has a key that is not a string")
                    continue
                if not _is_text(key):
                    problems.append(f"{format_path(path)}: has a key that is not valid Unicode text")
                    continue
                stack.append((item, (*path, key)))
        elif isinstance(value, list | tuple):
            stack.extend((item, (*path, index)) for index, item in enumerate(value))
        else:
            problems.append(f"{format_path(path)}: is not a JSON value")
        if len(problems) >= 20:
            break
    return sorted(problems)


def _is_text(value: str) -> bool:
    """Whether `value` can be sent as UTF-8 (JSON's `"\\ud800"` decodes to a lone surrogate, which cannot)."""
    if value.isascii():
        return True
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
