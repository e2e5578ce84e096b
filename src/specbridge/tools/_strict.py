"""OpenAI strict mode: an input schema in the subset OpenAI documents, or the reason it cannot be one.

The subset (OpenAI "Structured Outputs", supported schemas; function calling with `strict: true` uses the
same rules): types string, number, boolean, integer, object, array, enum, anyOf (and `null` in a type
union); the root an object; every object closed (`additionalProperties: false`) with every property
required, so optional ones become nullable; string `pattern` and `format` (only date-time, time, date,
duration, email, hostname, ipv4, ipv6, uuid); number `minimum`, `maximum`, `exclusiveMinimum`,
`exclusiveMaximum`, `multipleOf`; array `minItems`, `maxItems`; `$defs` with local `$ref`, recursion
allowed; at most 5,000 object properties, 10 levels of nesting, 120,000 characters of property names,
definition names, enum and const values, 1,000 enum values in all, and 15,000 characters for one enum of
more than 250 values.

What the subset cannot say but the gateway still checks (another format, a length, base64, unique
items, a dependency) is written into the property's description, and the keyword dropped. What it
cannot express at all (a free-form map, a value of any type, `not`, `if`/`then`, `patternProperties`,
overlapping `oneOf` branches, the limits) makes the tool non-strict: `StrictIncompatible` says why.
"""

from __future__ import annotations

import hashlib
from typing import Any

from .._json import dumps_bytes
from ._strict_limits import limit_broken
from ._strict_overlap import Facts, common_kinds, exclusive, kinds_of, pinned_values

Json = Any

STRICT_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
)
# OpenAPI's storage widths of numbers: nothing a model needs to be told.
_WIDTHS = frozenset({"int32", "int64", "float", "double"})
_KEEP = frozenset(
    {
        "type", "properties", "required", "additionalProperties", "items", "enum", "const", "anyOf",
        "description", "pattern", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
        "multipleOf", "minItems", "maxItems",
    }
)  # fmt: skip
_BREAKING = ("patternProperties", "not", "if", "then", "else", "dependentSchemas", "prefixItems")
_TYPES = frozenset({"string", "number", "boolean", "integer", "object", "array", "null"})
_SHAPE = frozenset({"type", "properties", "items", "enum", "const", "additionalProperties"})
_MAX_MERGE = 32  # allOf/$ref inlining steps (and, times 625, per conversion) before giving up
_MAX_NODES_DEEP = 200  # nested conversions; far past the 10 levels of nesting strict mode allows


class StrictIncompatible(Exception):
    """A schema that OpenAI strict mode cannot express; `reason` says what and where."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
        # The JSON pointer into the input schema the reason starts with ("" for the whole schema).
        self.where = reason.split(" ", 1)[0] if reason.startswith("/") and not reason.startswith("/ ") else ""


def strict_schema(schema: Json) -> Json:
    """The OpenAI strict-mode form of an input schema, or StrictIncompatible saying why not."""
    if not isinstance(schema, dict) or schema.get("type") != "object":
        raise StrictIncompatible("/ is not an object schema")
    definitions = schema.get("$defs")
    converter = _Converter(definitions if isinstance(definitions, dict) else {})
    root = converter.node({k: v for k, v in schema.items() if k != "$defs"}, "")
    converted = {
        name: converter.node(value, f"/$defs/{name}") for name, value in converter.definitions.items()
    }
    converted.update(converter.variants)
    if converted:
        root["$defs"] = converted
    broken = limit_broken(root)
    if broken is not None:
        raise StrictIncompatible(broken)
    return root


class _Converter:
    def __init__(self, definitions: dict[str, Json]) -> None:
        self.definitions = definitions
        self.recursive = _recursive_names(definitions)
        self.variants: dict[str, Json] = {}  # extra definitions: a recursive one with siblings merged in
        self._variant_names: dict[str, str] = {}
        self._nesting = 0
        self._merges = 0

    def node(self, node: Json, where: str, steps: int = 0) -> dict[str, Json]:
        self._nesting += 1
        try:
            if self._nesting > _MAX_NODES_DEEP:
                raise StrictIncompatible(f"{where or '/'} is nested too deeply to convert")
            return self._node(node, where, steps)
        finally:
            self._nesting -= 1

    def _node(self, node: Json, where: str, steps: int) -> dict[str, Json]:
        at = where or "/"
        if not isinstance(node, dict) or not node:
            raise StrictIncompatible(f"{at} accepts any value, which strict mode cannot express")
        if self._refers_to_recursive(node):
            return self._variant(node, at)
        if "$ref" in node:
            if set(node) <= {"$ref", "description"}:
                return self._reference(node, at)
            node = self._merge([self._target(node["$ref"], at), _without(node, "$ref")], at, steps)
        if "allOf" in node:
            parts = node["allOf"] if isinstance(node["allOf"], list) else []
            node = self._merge([_without(node, "allOf"), *parts], at, steps)
        breaking = [key for key in _BREAKING if key in node]
        if breaking:
            raise StrictIncompatible(f"{at} uses {', '.join(breaking)}")
        if "oneOf" in node and "anyOf" in node:
            raise StrictIncompatible(f"{at} has both oneOf and anyOf")
        for key in ("oneOf", "anyOf"):
            if key in node:
                return self._alternatives(node, key, where, steps)
        out: dict[str, Json] = {key: value for key, value in node.items() if key in _KEEP}
        if "enum" in out and not (isinstance(out["enum"], list) and out["enum"]):
            raise StrictIncompatible(f"{at} has an empty enum, which no value can match")
        if "type" in out and (
            not kinds_of(out) or not set(kinds_of(out)) <= _TYPES or not isinstance(out["type"], str | list)
        ):
            raise StrictIncompatible(f"{at} has the type {out['type']!r}, which strict mode does not know")
        notes = _notes(node)
        if "format" in out and out["format"] not in STRICT_FORMATS:
            if out["format"] not in _WIDTHS:
                notes.insert(0, f"Format: {out['format']}.")
            del out["format"]
        if "description" not in out and isinstance(node.get("title"), str):
            out["description"] = node["title"]
        if notes:
            out["description"] = " ".join([*([out["description"]] if "description" in out else []), *notes])
        kinds = kinds_of(out)
        free = out.pop("additionalProperties", False) is not False
        if "object" in kinds or "properties" in out or free:
            self._object(node, out, where)
        if "items" in out:
            out["items"] = self.node(out["items"], f"{where}/items")
        elif "array" in kinds:
            raise StrictIncompatible(f"{at} is an array with no item schema")
        if "type" not in out and "enum" not in out and "const" not in out:
            raise StrictIncompatible(f"{at} has no type")
        return out

    def _object(self, node: dict[str, Json], out: dict[str, Json], where: str) -> None:
        properties = out.get("properties")
        if not isinstance(properties, dict) or (
            not properties and node.get("additionalProperties") is not False
        ):
            raise StrictIncompatible(f"{where or '/'} is an object with free-form keys")
        names = node.get("required")
        required = {name for name in names if isinstance(name, str)} if isinstance(names, list) else set()
        undescribed = sorted(name for name in required if isinstance(name, str) and name not in properties)
        if undescribed:
            # a closed object could never carry it, so no call the model makes would be accepted
            raise StrictIncompatible(f"{where or '/'} requires `{undescribed[0]}` without describing it")
        out["properties"] = {
            name: (converted if name in required else _nullable(converted))
            for name, value in properties.items()
            for converted in (self.node(value, f"{where}/properties/{name}"),)
        }
        out["required"] = list(properties)
        out["additionalProperties"] = False
        if "type" not in out:
            out["type"] = "object"

    def _alternatives(self, node: dict[str, Json], key: str, where: str, steps: int) -> dict[str, Json]:
        """`anyOf`/`oneOf` as strict `anyOf`. Keywords beside it are distributed into every branch
        (`{P, anyOf: [A, B]}` is `anyOf: [P∧A, P∧B]`); a `oneOf` becomes `anyOf` only when no value can
        match two branches, since the gateway still checks the document's `oneOf`."""
        at = where or "/"
        parts = node[key] if isinstance(node[key], list) else []
        rest = _without(node, key, "description", "title", "oneOf", "anyOf")
        if rest.keys() & _SHAPE:
            parts = [
                self._merge([rest, part], f"{at}/{key}/{index}", steps) for index, part in enumerate(parts)
            ]
        if not parts:
            raise StrictIncompatible(f"{at} has an empty {key}")
        if key == "oneOf":
            parts = self._exclusive_branches(parts, at, steps)
        out: dict[str, Json] = {
            "anyOf": [self.node(part, f"{where}/{key}/{i}", steps) for i, part in enumerate(parts)]
        }
        description = node.get("description", node.get("title"))
        if isinstance(description, str):
            out["description"] = description
        return out

    def _exclusive_branches(self, parts: list[Json], at: str, steps: int) -> list[Json]:
        """The branches of a `oneOf`, when no value the model may give can match two of them. Two
        branches that pin one property to different values are told apart by it: strict mode then
        requires it (never null), even where the document left it optional."""
        facts = [self._facts(part, at, steps) for part in parts]
        forced: list[set[str]] = [set() for _ in parts]
        for i, first in enumerate(facts):
            for j in range(i + 1, len(facts)):
                second = facts[j]
                if exclusive(first, second):
                    continue
                telling = sorted(
                    name
                    for name in first.pinned.keys() & second.pinned.keys()
                    if not first.pinned[name] & second.pinned[name]
                )
                if not telling:
                    raise StrictIncompatible(
                        f"{at} is a oneOf whose branches {i} and {j} can match the same value"
                    )
                forced[i].add(telling[0])
                forced[j].add(telling[0])
        return [
            self._merge([part, {"required": sorted(names)}], at, steps) if names else part
            for part, names in zip(parts, forced, strict=True)
        ]

    def _refers_to_recursive(self, node: dict[str, Json]) -> bool:
        """A recursive definition combined with other keywords (siblings of its `$ref`, or an `allOf`
        part): inlining it would inline it again inside itself."""
        refs: list[Json] = []
        if "$ref" in node and set(node) - {"$ref", "description"}:
            refs.append(node["$ref"])
        parts = node.get("allOf")
        if isinstance(parts, list):
            refs.extend(part.get("$ref") for part in parts if isinstance(part, dict))
        return any(isinstance(ref, str) and ref.removeprefix("#/$defs/") in self.recursive for ref in refs)

    def _variant(self, node: dict[str, Json], at: str) -> dict[str, Json]:
        """The combination as a definition of its own, made once and referred to from every place it
        occurs (its own insides included), so a recursive schema stays a finite one."""
        body = _without(node, "description")
        key = dumps_bytes(body).decode()
        name = self._variant_names.get(key)
        if name is None:
            first = node.get("$ref") or next(
                p["$ref"] for p in node["allOf"] if isinstance(p, dict) and "$ref" in p
            )
            stem = str(first).removeprefix("#/$defs/")[:50]
            name = f"{stem}_{hashlib.sha256(key.encode()).hexdigest()[:6]}"
            self._variant_names[key] = name
            self.variants[name] = {}
            parts = [_without(body, "$ref"), *([{"$ref": body["$ref"]}] if "$ref" in body else [])]
            self.variants[name] = self.node(self._merge(parts, at, 0), f"/$defs/{name}")
        return _described_reference("#/$defs/" + name, node.get("description"))

    def _reference(self, node: dict[str, Json], at: str) -> dict[str, Json]:
        self._target(node["$ref"], at)
        return _described_reference(node["$ref"], node.get("description"))

    def _target(self, ref: Json, at: str) -> Json:
        name = ref.removeprefix("#/$defs/") if isinstance(ref, str) else None
        if name is None or name not in self.definitions:
            raise StrictIncompatible(f"{at} refers to {ref!r}, which is not one of the schema's $defs")
        return self.definitions[name]

    def _merge(self, parts: list[Json], at: str, steps: int) -> dict[str, Json]:
        """One schema from an intersection of schemas (`allOf`, or a `$ref` with siblings): refs and
        nested `allOf`s inlined, properties merged (the same name twice merges too), required united."""
        self._merges += 1
        if steps > _MAX_MERGE or self._merges > _MAX_MERGE * 625:  # a $ref in its own siblings multiplies
            raise StrictIncompatible(f"{at} combines schemas with allOf too deeply to flatten")
        merged: dict[str, Json] = {}
        for part in parts:
            if part is True or part == {}:
                continue
            if not isinstance(part, dict):
                raise StrictIncompatible(f"{at} combines a schema that accepts nothing")
            if "$ref" in part:
                part = self._merge([self._target(part["$ref"], at), _without(part, "$ref")], at, steps + 1)
            if "allOf" in part:
                inner = part["allOf"] if isinstance(part["allOf"], list) else []
                part = self._merge([_without(part, "allOf"), *inner], at, steps + 1)
            for key, value in part.items():
                if key not in merged:
                    merged[key] = value
                elif key == "properties" and isinstance(value, dict) and isinstance(merged[key], dict):
                    own = dict(merged["properties"])
                    for name, schema in value.items():
                        own[name] = (
                            schema
                            if name not in own or own[name] == schema
                            else {"allOf": [own[name], schema]}
                        )
                    merged["properties"] = own
                elif key == "required" and isinstance(value, list) and isinstance(merged[key], list):
                    merged["required"] = list(dict.fromkeys([*merged["required"], *value]))
                elif key == "type" and value != merged["type"]:
                    common = common_kinds(kinds_of(merged), kinds_of({"type": value}))
                    if not common:
                        raise StrictIncompatible(f"{at} combines schemas of different types")
                    merged["type"] = common[0] if len(common) == 1 else common
                elif key in ("oneOf", "anyOf") and merged[key] != value:
                    raise StrictIncompatible(f"{at} combines two sets of alternatives with allOf")
        return merged

    def _facts(self, part: Json, at: str, steps: int) -> Facts:
        """What decides whether two branches overlap: types, declared and required properties, closed,
        and the values each property is pinned to."""
        node = self._merge([part], at, steps) if isinstance(part, dict) else {}
        found = node.get("properties")
        properties: dict[str, Json] = found if isinstance(found, dict) else {}
        pinned: dict[str, frozenset[str]] = {}
        for name, schema in properties.items():
            values = pinned_values(
                self._merge([schema], at, steps + 1) if isinstance(schema, dict) else schema
            )
            if values is not None:
                pinned[name] = values
        return Facts(
            kinds=frozenset(kinds_of(node)),
            values=pinned_values(node),
            declared=frozenset(properties),
            required=frozenset(n for n in node.get("required") or [] if isinstance(n, str)),
            closed=node.get("additionalProperties") is False,
            pinned=pinned,
            pattern=node["pattern"] if isinstance(node.get("pattern"), str) else None,
        )


def _described_reference(ref: str, description: Json) -> dict[str, Json]:
    """A `$ref` stands alone in strict mode (OpenAI refuses keywords beside it), so a description
    moves onto a one-branch `anyOf` around it."""
    if not isinstance(description, str):
        return {"$ref": ref}
    return {"anyOf": [{"$ref": ref}], "description": description}


def _recursive_names(definitions: dict[str, Json]) -> frozenset[str]:
    """The definitions that can reach themselves through `$ref`s."""
    edges: dict[str, set[str]] = {}
    for name, value in definitions.items():
        found: set[str] = set()
        stack = [value]
        while stack:
            node = stack.pop()
            if isinstance(node, dict):
                ref = node.get("$ref")
                if isinstance(ref, str) and ref.startswith("#/$defs/"):
                    found.add(ref.removeprefix("#/$defs/"))
                stack.extend(v for k, v in node.items() if k not in ("enum", "const", "default", "examples"))
            elif isinstance(node, list):
                stack.extend(node)
        edges[name] = found
    recursive: set[str] = set()
    for start in edges:
        seen: set[str] = set()
        pending = list(edges[start])
        while pending:
            name = pending.pop()
            if name == start:
                recursive.add(start)
                break
            if name not in seen:
                seen.add(name)
                pending.extend(edges.get(name, ()))
    return frozenset(recursive)


def _notes(node: dict[str, Json]) -> list[str]:
    """Sentences for what strict mode cannot say but the gateway checks."""
    notes: list[str] = []
    low, high = node.get("minLength"), node.get("maxLength")
    if isinstance(low, int) and isinstance(high, int):
        notes.append(f"Exactly {low} characters." if low == high else f"{low} to {high} characters.")
    elif isinstance(low, int) and low > 0:
        notes.append(f"At least {low} characters.")
    elif isinstance(high, int):
        notes.append(f"At most {high} characters.")
    if node.get("contentEncoding") == "base64":
        notes.append("Base64-encoded.")
    elif isinstance(node.get("contentMediaType"), str):
        notes.append(f"Content: {node['contentMediaType']}.")
    if node.get("uniqueItems") is True:
        notes.append("Items must be unique.")
    dependent = node.get("dependentRequired")
    if isinstance(dependent, dict):
        for name, others in dependent.items():
            if isinstance(others, list) and others:
                notes.append(f"With `{name}`, also give {', '.join(f'`{o}`' for o in others)}.")
    return notes


def _without(node: dict[str, Json], *keys: str) -> dict[str, Json]:
    return {key: value for key, value in node.items() if key not in keys}


def _nullable(schema: dict[str, Json]) -> dict[str, Json]:
    kinds = schema.get("type")
    if isinstance(kinds, str):
        result = {**schema, "type": [kinds, "null"]} if kinds != "null" else schema
    elif isinstance(kinds, list):
        result = {**schema, "type": [*kinds, "null"]} if "null" not in kinds else schema
    elif "anyOf" in schema:
        parts = schema["anyOf"]
        return schema if {"type": "null"} in parts else {**schema, "anyOf": [*parts, {"type": "null"}]}
    else:
        return {"anyOf": [schema, {"type": "null"}]}
    if isinstance(result.get("enum"), list) and None not in result["enum"]:
        result = {**result, "enum": [*result["enum"], None]}
    return result
