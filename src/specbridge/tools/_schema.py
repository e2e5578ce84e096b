"""Shaping document schemas into JSON Schema 2020-12 tool schemas.

OpenAPI 3.0 / Swagger 2.0 keywords are translated (`nullable`, boolean `exclusiveMinimum`, `type: file`)
or dropped (`discriminator`, `xml`, `example`, extensions). A `$ref` is inlined unless its target is
recursive (part of a reference cycle) or large; those go to `$defs` once per tool and are referenced.
Whether a target is recursive is a property of the reference graph (its strongly connected components),
so a shaped schema is the same whichever operation reaches it first, and is computed once per document.
"""

from __future__ import annotations

import contextlib
import hashlib
import re
from dataclasses import dataclass
from typing import Any, Literal

from .._json import dumps_bytes
from ..spec import Resolver, Schema, UnresolvedRef
from ..spec._refs import walk_pointer

Mode = Literal["input", "output"]
Json = Any

# A referenced schema larger than this (serialised, once shaped) goes to `$defs` instead of being copied.
LARGE_SCHEMA_BYTES = 2048
MAX_INLINE_DEPTH = 96
_NAME_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")

_TYPES = frozenset({"string", "number", "integer", "boolean", "array", "object", "null"})
_COUNTS = (
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "minProperties",
    "maxProperties",
    "minContains",
    "maxContains",
)
_NUMBERS = ("minimum", "maximum")
_SCHEMA_MAPS = ("patternProperties", "dependentSchemas")
_SCHEMA_ONES = (
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
    "contentSchema",
)
_SCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
_STRINGS = ("format", "contentMediaType", "contentEncoding", "pattern")
# Keys whose values are data, never schemas: a `$ref` inside them is not a reference.
_DATA_KEYS = frozenset({"example", "examples", "default", "enum", "const", "x-example"})


@dataclass(frozen=True, slots=True)
class Shaped:
    """A shaped schema and the `$defs` entries (by target key) it needs."""

    value: Json
    needs: frozenset[str]


@dataclass(frozen=True, slots=True)
class Definition:
    name: str
    value: Json
    needs: frozenset[str]


class SchemaShaper:
    """Shapes the schemas of one document. Not thread-safe; one per conversion."""

    def __init__(self, resolver: Resolver) -> None:
        self.resolver = resolver
        self._memo: dict[tuple[str, Mode], Shaped] = {}
        self._definitions: dict[tuple[str, Mode], Definition] = {}
        self._def_names: dict[str, str] = {}
        self._taken_names: set[str] = set()
        self._component: dict[str, int] = {}
        self._recursive: set[str] = set()
        self.unresolved: dict[str, str] = {}  # ref -> reason, for lint

    # ---- public -------------------------------------------------------------------------------------

    def shape(self, schema: Schema, mode: Mode) -> Shaped:
        return self._node(schema.value, schema.base, mode, 0)

    def definitions(self, needs: frozenset[str], mode: Mode) -> dict[str, Json]:
        """The `$defs` block for a tool: every definition `needs` names, and the ones those need."""
        result: dict[str, Json] = {}
        pending = sorted(needs)
        seen: set[str] = set()
        while pending:
            key = pending.pop()
            if key in seen:
                continue
            seen.add(key)
            definition = self._definition(key, mode)
            result[definition.name] = definition.value
            pending.extend(sorted(definition.needs - seen))
        return dict(sorted(result.items()))

    def bounded(self, value: Json, mode: Mode, levels: int) -> Json:
        """`value` with its `$defs` references inlined, cut below `levels` of nested objects/arrays.
        A cut object or array keeps its type and loses its insides, so it still accepts what it did."""
        keys_by_name = {name: key for key, name in self._def_names.items()}

        def walk(node: Json, level: int, seen: frozenset[str]) -> Json:
            if not isinstance(node, dict):
                return node
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                key = keys_by_name.get(ref[len("#/$defs/") :])
                if key is None or key in seen:
                    return {}
                target = self._definition(key, mode).value
                merged = (
                    {**target, **{k: v for k, v in node.items() if k != "$ref"}}
                    if isinstance(target, dict)
                    else target
                )
                return walk(merged, level, seen | {key})
            nests = node.get("type") in ("object", "array") or "properties" in node or "items" in node
            if nests and level >= levels:
                kind = node.get("type")
                cut = {"type": kind} if kind is not None else {}
                if isinstance(node.get("description"), str):
                    cut["description"] = node["description"]
                return cut
            inner = level + 1 if nests else level
            out: dict[str, Json] = {}
            for key, child in node.items():
                if key in ("properties", "patternProperties", "dependentSchemas") and isinstance(child, dict):
                    out[key] = {name: walk(item, inner, seen) for name, item in child.items()}
                elif key in ("items", "additionalProperties", "not", "contains") and isinstance(child, dict):
                    out[key] = walk(child, inner, seen)
                elif key in ("allOf", "anyOf", "oneOf", "prefixItems") and isinstance(child, list):
                    out[key] = [walk(item, level if key != "prefixItems" else inner, seen) for item in child]
                else:
                    out[key] = child
            return out

        return walk(value, 0, frozenset())

    def resolve(self, value: Json, base: str) -> tuple[str, Json]:
        """Follow a `$ref` (if any) to the schema it names; unresolvable refs become `{}`."""
        if isinstance(value, dict) and isinstance(value.get("$ref"), str):
            try:
                target = self.resolver.resolve(base, value["$ref"])
            except UnresolvedRef as error:
                self.unresolved[value["$ref"]] = error.reason
                return base, {}
            return target.base, target.value
        return base, value

    def is_recursive(self, value: Json, base: str) -> bool:
        if not (isinstance(value, dict) and isinstance(value.get("$ref"), str)):
            return False
        try:
            key = self.resolver.resolve(base, value["$ref"]).key
        except UnresolvedRef:
            return False
        self._find_cycles(key)
        return key in self._recursive

    # ---- shaping ------------------------------------------------------------------------------------

    def _node(self, value: Json, base: str, mode: Mode, depth: int) -> Shaped:
        if isinstance(value, bool):
            return Shaped(value, frozenset())
        if not isinstance(value, dict) or depth > MAX_INLINE_DEPTH:
            return Shaped({}, frozenset())
        ref = value.get("$ref")
        if isinstance(ref, str):
            shaped = self._reference(ref, base, mode, depth)
            return self._with_siblings(shaped, value)
        return self._object(value, base, mode, depth)

    def _reference(self, ref: str, base: str, mode: Mode, depth: int) -> Shaped:
        try:
            target = self.resolver.resolve(base, ref)
        except UnresolvedRef as error:
            self.unresolved[ref] = error.reason
            return Shaped({}, frozenset())
        key = target.key
        self._find_cycles(key)
        if key in self._recursive:
            return Shaped({"$ref": "#/$defs/" + self._def_name(key)}, frozenset({key}))
        memo_key = (key, mode)
        shaped = self._memo.get(memo_key)
        if shaped is None:
            shaped = self._node(target.value, target.base, mode, depth + 1)
            self._memo[memo_key] = shaped
        if len(dumps_bytes(shaped.value)) > LARGE_SCHEMA_BYTES:
            return Shaped({"$ref": "#/$defs/" + self._def_name(key)}, frozenset({key}))
        return shaped

    def _with_siblings(self, shaped: Shaped, value: dict[str, Any]) -> Shaped:
        """A `$ref` with a description or nullable beside it keeps them (OpenAPI 3.1 allows siblings)."""
        description = value.get("description")
        nullable = value.get("nullable") is True or value.get("x-nullable") is True
        if not isinstance(description, str) and not nullable:
            return shaped
        result = dict(shaped.value) if isinstance(shaped.value, dict) else {"allOf": [shaped.value]}
        if isinstance(description, str) and description.strip():
            result["description"] = description.strip()
        if nullable:
            result = _nullable(result)
        return Shaped(result, shaped.needs)

    def _object(self, value: dict[str, Any], base: str, mode: Mode, depth: int) -> Shaped:
        out: dict[str, Any] = {}
        needs: set[str] = set()

        def sub(node: Json) -> Json:
            shaped = self._node(node, base, mode, depth + 1)
            needs.update(shaped.needs)
            return shaped.value

        kind = value.get("type")
        if kind == "file" or (kind == "string" and value.get("format") == "binary"):
            out["type"] = "string"
            out["contentMediaType"] = "application/octet-stream"
        elif isinstance(kind, str) and kind in _TYPES:
            out["type"] = kind
        elif isinstance(kind, list):
            kinds = [item for item in dict.fromkeys(kind) if isinstance(item, str) and item in _TYPES]
            if kinds:
                out["type"] = kinds if len(kinds) > 1 else kinds[0]
        for key in _STRINGS:
            if (
                isinstance(value.get(key), str)
                and key not in out
                and not (key == "format" and "contentMediaType" in out)
            ):
                out[key] = value[key]
        description = value.get("description")
        if isinstance(description, str) and description.strip():
            out["description"] = description.strip()
        elif isinstance(value.get("title"), str) and value["title"].strip():
            out["title"] = value["title"].strip()
        for key in ("enum",):
            if isinstance(value.get(key), list) and value[key]:
                out[key] = value[key]
        if "const" in value:
            out["const"] = value["const"]
        if "default" in value:
            out["default"] = value["default"]
        for key in _NUMBERS:
            if _is_number(value.get(key)):
                out[key] = value[key]
        if _is_number(value.get("multipleOf")) and value["multipleOf"] > 0:
            out["multipleOf"] = value["multipleOf"]
        for key, bound in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
            flag = value.get(key)
            if flag is True and bound in out:
                out[key] = out.pop(bound)
            elif _is_number(flag):
                out[key] = flag
        for key in _COUNTS:
            count = value.get(key)
            if isinstance(count, int) and not isinstance(count, bool) and count >= 0:
                out[key] = count
        if isinstance(value.get("uniqueItems"), bool):
            out["uniqueItems"] = value["uniqueItems"]
        properties = value.get("properties")
        required = value.get("required")
        if isinstance(properties, dict):
            shaped_properties: dict[str, Json] = {}
            for name, prop in properties.items():
                if not isinstance(prop, dict | bool) or self._hidden(prop, base, mode):
                    continue
                shaped_properties[name] = sub(prop)
            out["properties"] = shaped_properties
        if isinstance(required, list) and mode == "input":
            # Answers often leave out fields their document calls required; a client that checks
            # structuredContent against outputSchema would then reject a good answer.
            names = [name for name in dict.fromkeys(required) if isinstance(name, str)]
            if isinstance(out.get("properties"), dict):
                hidden = set(properties or ()) - set(out["properties"])
                names = [name for name in names if name not in hidden]
            if names:
                out["required"] = names
        if isinstance(value.get("dependentRequired"), dict):
            out["dependentRequired"] = {
                k: [n for n in v if isinstance(n, str)]
                for k, v in value["dependentRequired"].items()
                if isinstance(v, list)
            }
        additional = value.get("additionalProperties")
        if isinstance(additional, dict) or (isinstance(additional, bool) and mode == "input"):
            out["additionalProperties"] = sub(additional)
        items = value.get("items")
        if isinstance(items, dict | bool):
            out["items"] = sub(items)
        elif isinstance(items, list) and items:
            out["prefixItems"] = [sub(item) for item in items if isinstance(item, dict | bool)]
        for key in _SCHEMA_LISTS:
            entries = value.get(key)
            if isinstance(entries, list):
                shaped_entries = [sub(entry) for entry in entries if isinstance(entry, dict | bool)]
                if shaped_entries:
                    out[key] = shaped_entries
        for key in _SCHEMA_ONES:
            if isinstance(value.get(key), dict | bool):
                out[key] = sub(value[key])
        for key in _SCHEMA_MAPS:
            if isinstance(value.get(key), dict):
                out[key] = {k: sub(v) for k, v in value[key].items() if isinstance(v, dict | bool)}
        if value.get("nullable") is True or value.get("x-nullable") is True:
            out = _nullable(out)
        return Shaped(out, frozenset(needs))

    def hidden_input(self, prop: Json, base: str) -> bool:
        return self._hidden(prop, base, "input")

    def _hidden(self, prop: Json, base: str, mode: Mode) -> bool:
        """readOnly properties are not inputs; writeOnly properties never come back."""
        _, target = self.resolve(prop, base) if isinstance(prop, dict) and "$ref" in prop else (base, prop)
        if not isinstance(target, dict):
            return False
        if mode == "input":
            return target.get("readOnly") is True or (isinstance(prop, dict) and prop.get("readOnly") is True)
        return target.get("writeOnly") is True or (isinstance(prop, dict) and prop.get("writeOnly") is True)

    # ---- definitions and cycles ---------------------------------------------------------------------

    def _definition(self, key: str, mode: Mode) -> Definition:
        cached = self._definitions.get((key, mode))
        if cached is not None:
            return cached
        base, _, pointer = key.partition("#")
        value = walk_pointer(self.resolver.file(base), pointer)
        memo = self._memo.get((key, mode))
        shaped = memo if memo is not None else self._node(value, base, mode, 0)
        self._memo[(key, mode)] = shaped
        definition = Definition(self._def_name(key), shaped.value, shaped.needs)
        self._definitions[(key, mode)] = definition
        return definition

    def _def_name(self, key: str) -> str:
        name = self._def_names.get(key)
        if name is not None:
            return name
        last = key.rsplit("/", 1)[-1].replace("~1", "/").replace("~0", "~")
        candidate = _NAME_UNSAFE.sub("_", last)[:60] or "schema"
        if candidate in self._taken_names:
            candidate = f"{candidate[:50]}_{hashlib.sha256(key.encode()).hexdigest()[:8]}"
        self._taken_names.add(candidate)
        self._def_names[key] = candidate
        return candidate

    def _edges(self, key: str) -> list[str]:
        base, _, pointer = key.partition("#")
        try:
            value = walk_pointer(self.resolver.file(base), pointer)
        except (KeyError, IndexError):
            return []
        found: list[str] = []
        stack: list[Json] = [value]
        while stack:
            node = stack.pop()
            if isinstance(node, dict):
                ref = node.get("$ref")
                if isinstance(ref, str):
                    with contextlib.suppress(UnresolvedRef):
                        found.append(self.resolver.resolve(base, ref).key)
                    continue
                stack.extend(v for k, v in node.items() if k not in _DATA_KEYS and isinstance(v, dict | list))
            elif isinstance(node, list):
                stack.extend(v for v in node if isinstance(v, dict | list))
        return found

    def _find_cycles(self, start: str) -> None:
        """Tarjan's strongly connected components, iteratively, from `start` over unvisited targets."""
        if start in self._component:
            return
        index: dict[str, int] = {}
        low: dict[str, int] = {}
        on_stack: set[str] = set()
        stack: list[str] = []
        edges: dict[str, list[str]] = {}
        counter = len(self._component)
        work: list[tuple[str, int]] = [(start, 0)]
        while work:
            node, position = work.pop()
            if position == 0:
                index[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack.add(node)
                edges[node] = self._edges(node)
            successors = edges[node]
            if position < len(successors):
                work.append((node, position + 1))
                child = successors[position]
                if child in self._component:
                    continue
                if child not in index:
                    work.append((child, 0))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            if low[node] == index[node]:
                members = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    members.append(member)
                    self._component[member] = index[node]
                    if member == node:
                        break
                if len(members) > 1 or node in edges[node]:
                    self._recursive.update(members)
            if work:
                parent = work[-1][0]
                if parent in low:
                    low[parent] = min(low[parent], low[node])


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    kind = schema.get("type")
    if isinstance(kind, str):
        result = {**schema, "type": [kind, "null"]} if kind != "null" else schema
    elif isinstance(kind, list):
        result = {**schema, "type": [*kind, "null"]} if "null" not in kind else schema
    elif not schema:
        return schema
    else:
        return {"anyOf": [schema, {"type": "null"}]}
    if isinstance(result.get("enum"), list) and None not in result["enum"]:
        result["enum"] = [*result["enum"], None]
    return result


def _is_number(value: Any) -> bool:
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and value == value
        and abs(value) != float("inf")
    )
