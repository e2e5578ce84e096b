"""Shaping document schemas into JSON Schema 2020-12 tool schemas.

OpenAPI 3.0 / Swagger 2.0 keywords are translated (`nullable`, boolean `exclusiveMinimum`, `type: file`)
or dropped (`discriminator`, `xml`, `example`, extensions). A `$ref` is inlined unless its target is
recursive (part of a reference cycle) or large; those go to `$defs` once per tool and are referenced.
Whether a target is recursive is a property of the reference graph (`_schema_graph`: its strongly
connected components), so a shaped schema is the same whichever operation reaches it first, and is
computed once per document. The keywords kept are listed in `_schema_keywords`; what an answer (output)
schema does differently, in `_schema_answer`.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

from .._json import dumps_bytes
from ..document import Resolver, Schema, UnresolvedRef
from ..document.pointer import unescape_token, walk_pointer
from ._discriminator import pin_discriminator, pin_implicit
from ._schema_answer import answer_property, cut
from ._schema_direction import without_names
from ._schema_graph import ReferenceGraph
from ._schema_keywords import (
    COUNTS,
    NUMBERS,
    SCHEMA_LISTS,
    SCHEMA_MAPS,
    SCHEMA_ONES,
    STRINGS,
    TYPES,
    is_number,
    is_regex,
    nullable,
)

Mode = Literal["input", "output"]
Json = Any

# A referenced schema larger than this (serialised, once shaped) goes to `$defs` instead of being copied.
LARGE_SCHEMA_BYTES = 2048
# Copies multiply: a schema just under the bound, named 24 times by a schema that is itself copied,
# grows a 200 KB document into megabytes per tool. A tool whose input schema passes this size (the
# largest in the corpus is 165 KB: Adyen's 80-branch payment method) is shaped again with every
# referenced schema over COMPACT_INLINE_BYTES in `$defs`, each once.
MAX_INPUT_SCHEMA_BYTES = 256 * 1024
COMPACT_INLINE_BYTES = 256
MAX_INLINE_DEPTH = 96
# How far `readOnly`/`writeOnly` and discriminator values are looked for through `$ref`/`allOf` chains.
_FLAG_DEPTH = 16
_NAME_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")
_NOTHING: frozenset[str] = frozenset()


class Shaped(NamedTuple):  # a tuple: made tens of thousands of times per large document
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

    def __init__(self, resolver: Resolver, inline_bytes: int = LARGE_SCHEMA_BYTES) -> None:
        self.resolver = resolver
        self.inline_bytes = inline_bytes  # a referenced schema larger than this goes to `$defs`
        self._memo: dict[tuple[str, Mode], Shaped] = {}
        self._bounded_memo: dict[tuple[str, Mode, int], Shaped] = {}
        self._definitions: dict[tuple[str, Mode], Definition] = {}
        self._def_names: dict[str, str] = {}
        self._taken_names: set[str] = set()
        self._graph = ReferenceGraph(resolver)
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

    def shape_bounded(self, schema: Schema, mode: Mode, levels: int) -> Json:
        """`schema` shaped with every `$ref` inlined, cut below `levels` of nested objects/arrays.
        A cut object or array keeps its type (and description) and loses its insides, so it still
        accepts what it did. Parts below the cut are never shaped at all."""
        return self._node(schema.value, schema.base, mode, 0, levels).value

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
        return self._graph.is_recursive(key)

    # ---- shaping ------------------------------------------------------------------------------------

    def _node(self, value: Json, base: str, mode: Mode, depth: int, room: int | None = None) -> Shaped:
        if isinstance(value, bool):
            return Shaped(value, _NOTHING)
        if not isinstance(value, dict) or depth > MAX_INLINE_DEPTH:
            return Shaped({}, _NOTHING)
        ref = value.get("$ref")
        if isinstance(ref, str):
            shaped = self._reference(ref, base, mode, depth, room)
            return self._with_siblings(shaped, value)
        return self._object(value, base, mode, depth, room)

    def _reference(self, ref: str, base: str, mode: Mode, depth: int, room: int | None) -> Shaped:
        try:
            target = self.resolver.resolve(base, ref)
        except UnresolvedRef as error:
            self.unresolved[ref] = error.reason
            return Shaped({}, _NOTHING)
        key = target.key
        if room is not None:  # bounded: always inlined; the cut ends recursion
            bounded_key = (key, mode, room)
            cached = self._bounded_memo.get(bounded_key)
            if cached is None:
                cached = self._node(target.value, target.base, mode, depth + 1, room)
                self._bounded_memo[bounded_key] = cached
            return cached
        if self._graph.is_recursive(key):
            return Shaped({"$ref": "#/$defs/" + self._def_name(key)}, frozenset({key}))
        memo_key = (key, mode)
        shaped = self._memo.get(memo_key)
        if shaped is None:
            shaped = self._node(target.value, target.base, mode, depth + 1)
            self._memo[memo_key] = shaped
        if len(dumps_bytes(shaped.value)) > self.inline_bytes:
            return Shaped({"$ref": "#/$defs/" + self._def_name(key)}, frozenset({key}))
        return shaped

    def _with_siblings(self, shaped: Shaped, value: dict[str, Any]) -> Shaped:
        """A `$ref` with a description or nullable beside it keeps them (OpenAPI 3.1 allows siblings)."""
        description = value.get("description")
        may_be_null = value.get("nullable") is True or value.get("x-nullable") is True
        if not isinstance(description, str) and not may_be_null:
            return shaped
        result = dict(shaped.value) if isinstance(shaped.value, dict) else {"allOf": [shaped.value]}
        if isinstance(description, str) and description.strip():
            result["description"] = description.strip()
        if may_be_null:
            result = nullable(result)
        return Shaped(result, shaped.needs)

    def _object(self, value: dict[str, Any], base: str, mode: Mode, depth: int, room: int | None) -> Shaped:
        out: dict[str, Any] = {}
        needs: set[str] = set()
        nests = value.get("type") in ("object", "array") or "properties" in value or "items" in value
        if room is not None and nests and room <= 0:
            return Shaped(cut(value), _NOTHING)
        inner = room - 1 if room is not None and nests else room

        def sub(node: Json) -> Json:
            """A schema nested inside this one (a property, the items, …): one level further in."""
            shaped = self._node(node, base, mode, depth + 1, inner)
            needs.update(shaped.needs)
            return shaped.value

        def alternative(node: Json) -> Json:
            """A schema combined with this one (allOf/anyOf/oneOf): the same level."""
            shaped = self._node(node, base, mode, depth + 1, room)
            needs.update(shaped.needs)
            return shaped.value

        kind = value.get("type")
        binary = kind == "file" or (kind == "string" and value.get("format") == "binary")
        if binary:
            out["type"] = "string"
            out["contentMediaType"] = "application/octet-stream"
        # One pass over the keys the schema has (most have two or three), not over every keyword.
        for key, item in value.items():
            if key == "type":
                if binary:
                    continue
                if isinstance(item, str) and item in TYPES:
                    out["type"] = item
                elif isinstance(item, list):
                    kinds = list(dict.fromkeys(k for k in item if isinstance(k, str) and k in TYPES))
                    if kinds:
                        out["type"] = kinds if len(kinds) > 1 else kinds[0]
            elif key in STRINGS:
                if not isinstance(item, str) or (binary and key in ("format", "contentMediaType")):
                    continue
                if key == "format" and item == "byte":  # OpenAPI's base64 text; not a 2020-12 format
                    out["contentEncoding"] = "base64"
                elif key != "pattern" or is_regex(item):
                    out[key] = item
            elif key == "description":
                if isinstance(item, str) and item.strip():
                    out["description"] = item.strip()
            elif key == "enum":
                if isinstance(item, list) and item:
                    out["enum"] = item
            elif key in ("const", "default"):
                out[key] = item
            elif key in NUMBERS:
                if is_number(item):
                    out[key] = item
            elif key == "multipleOf":
                if is_number(item) and item > 0:
                    out[key] = item
            elif key in COUNTS:
                if isinstance(item, int) and not isinstance(item, bool) and item >= 0:
                    out[key] = item
            elif key == "uniqueItems":
                if isinstance(item, bool):
                    out[key] = item
            elif key == "properties":
                if isinstance(item, dict):
                    out["properties"] = {
                        name: sub(prop) if mode == "input" else answer_property(sub(prop))
                        for name, prop in item.items()
                        if isinstance(prop, dict | bool) and not self._hidden(prop, base, mode)
                    }
            elif key == "dependentRequired":
                if isinstance(item, dict):
                    out[key] = {
                        k: list(dict.fromkeys(n for n in v if isinstance(n, str)))
                        for k, v in item.items()
                        if isinstance(v, list)
                    }
            elif key == "additionalProperties":
                if isinstance(item, dict) or (isinstance(item, bool) and mode == "input"):
                    out[key] = sub(item)
            elif key == "items":
                if isinstance(item, dict | bool):
                    out["items"] = sub(item)
                elif isinstance(item, list):
                    entries = [sub(entry) for entry in item if isinstance(entry, dict | bool)]
                    if entries:  # an empty prefixItems is no schema a validator will compile
                        out["prefixItems"] = entries
            elif key in SCHEMA_LISTS:
                if isinstance(item, list):
                    combine = sub if key == "prefixItems" else alternative
                    entries = [combine(entry) for entry in item if isinstance(entry, dict | bool)]
                    if entries:
                        out[key] = entries
            elif key in SCHEMA_ONES:
                if isinstance(item, dict | bool):
                    out[key] = sub(item)
            elif key in SCHEMA_MAPS and isinstance(item, dict):
                out[key] = {
                    k: sub(v)
                    for k, v in item.items()
                    if isinstance(v, dict | bool) and (key != "patternProperties" or is_regex(k))
                }
        if "description" not in out and isinstance(value.get("title"), str) and value["title"].strip():
            out["title"] = value["title"].strip()
        for key, bound in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
            flag = value.get(key)
            if flag is True and bound in out:
                out[key] = out.pop(bound)
            elif is_number(flag):
                out[key] = flag
        required = value.get("required")
        parts = value.get("allOf")
        group = mode == "input" and (isinstance(required, list) or isinstance(parts, list))
        hidden = self._hidden_names(value, base, mode, 0) if group else _NOTHING
        if isinstance(required, list) and mode == "input":
            # Answers often leave out fields their document calls required; a client that checks
            # structuredContent against outputSchema would then reject a good answer.
            names = list(dict.fromkeys(n for n in required if isinstance(n, str) and n not in hidden))
            if names:
                out["required"] = names
        if hidden and isinstance(parts, list):
            # Read-only in every declaration: no part offers or requires it.
            out = without_names(out, frozenset(hidden))
        if mode == "input" and isinstance(value.get("discriminator"), dict):
            pin_discriminator(self, value, base, out)
        elif mode == "input" and isinstance(value.get("oneOf"), list):
            pin_implicit(self, value, base, out)
        if value.get("nullable") is True or value.get("x-nullable") is True:
            out = nullable(out)
        return Shaped(out, frozenset(needs))

    def hidden_input(self, prop: Json, base: str) -> bool:
        return self._hidden(prop, base, "input")

    def _hidden(self, prop: Json, base: str, mode: Mode, depth: int = 0) -> bool:
        """readOnly properties are not inputs; writeOnly properties never come back. The flag counts
        wherever it sits: on the property, on what its `$ref` names, or on any `allOf` part of either."""
        if not isinstance(prop, dict) or depth > _FLAG_DEPTH:
            return False
        if prop.get("readOnly" if mode == "input" else "writeOnly") is True:
            return True
        if isinstance(prop.get("$ref"), str):
            target_base, target = self.resolve(prop, base)
            if target is not prop and self._hidden(target, target_base, mode, depth + 1):
                return True
        parts = prop.get("allOf")
        return isinstance(parts, list) and any(self._hidden(part, base, mode, depth + 1) for part in parts)

    def _hidden_names(self, value: dict[str, Any], base: str, mode: Mode, depth: int) -> set[str]:
        """Names of the properties of an object hidden in every declaration of them, its own and those
        its `allOf` parts declare, so a `required` beside an `allOf` never asks for a property the input
        no longer has. A name declared again without the flag is kept: a subtype that redeclares a base
        schema's read-only `type` as a writable enum and requires it wants it sent."""
        hidden, shown = self._declared(value, base, mode, depth)
        return hidden - shown

    def _declared(
        self, value: dict[str, Any], base: str, mode: Mode, depth: int
    ) -> tuple[set[str], set[str]]:
        """The property names an object (with its `allOf` parts) declares hidden, and declares shown."""
        hidden: set[str] = set()
        shown: set[str] = set()
        properties = value.get("properties")
        if isinstance(properties, dict):
            for name, prop in properties.items():
                (hidden if self._hidden(prop, base, mode) else shown).add(name)
        parts = value.get("allOf")
        if isinstance(parts, list) and depth < _FLAG_DEPTH:
            for part in parts:
                part_base, target = self.resolve(part, base)
                if isinstance(target, dict):
                    part_hidden, part_shown = self._declared(target, part_base, mode, depth + 1)
                    hidden |= part_hidden
                    shown |= part_shown
        return hidden, shown

    # ---- definitions ---------------------------------------------------------------------------

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
        last = unescape_token(key.rsplit("/", 1)[-1])
        candidate = _NAME_UNSAFE.sub("_", last)[:60] or "schema"
        if candidate in self._taken_names:
            candidate = f"{candidate[:50]}_{hashlib.sha256(key.encode()).hexdigest()[:8]}"
        self._taken_names.add(candidate)
        self._def_names[key] = candidate
        return candidate
