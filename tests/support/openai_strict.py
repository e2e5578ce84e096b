"""A checker of the schema subset OpenAI documents for strict mode (Structured Outputs, "Supported schemas").

Written from the documentation, not from the exporter, so it can catch the exporter's mistakes:

- types string, number, boolean, integer, object, array (and "null" in a type union), enum, const, anyOf;
  `$defs` with local `$ref` (alone: OpenAI refuses keywords beside a `$ref`), recursion allowed;
- the root is an object and not `anyOf`;
- every object has `additionalProperties: false` and lists every property in `required`;
- string keywords: `pattern`, `format` (date-time, time, date, duration, email, hostname, ipv4, ipv6,
  uuid only); number keywords: `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`,
  `multipleOf`; array keywords: `minItems`, `maxItems`; annotations: `description`;
- no `allOf`, `not`, `if`/`then`/`else`, `dependentRequired`, `dependentSchemas`, `patternProperties`,
  `oneOf` (or any other keyword);
- at most 5,000 object properties in all, at most 10 levels of nesting, at most 120,000 characters in all
  property names, definition names, enum values and const values, at most 1,000 enum values in all, and
  an enum of more than 250 values at most 15,000 characters long.

A level of nesting is an object or an array (counted conservatively: the root object is level 1, and a
`$ref` counts as the levels of what it names, except a reference back into a cycle, which strict mode
explicitly allows).
"""

from __future__ import annotations

import re
from typing import Any

STRICT_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
)
STRICT_TYPES = frozenset({"string", "number", "boolean", "integer", "object", "array", "null"})
STRICT_KEYWORDS = frozenset(
    {
        "type", "properties", "required", "additionalProperties", "items", "enum", "const", "anyOf",
        "$ref", "$defs", "description", "pattern", "format", "minimum", "maximum", "exclusiveMinimum",
        "exclusiveMaximum", "multipleOf", "minItems", "maxItems",
    }
)  # fmt: skip
MAX_PROPERTIES = 5000
MAX_NESTING = 10
MAX_STRING_LENGTH = 120_000
MAX_ENUM_VALUES = 1000
LARGE_ENUM = 250
MAX_LARGE_ENUM_LENGTH = 15_000


def strict_problems(schema: Any) -> list[str]:
    """Every way `schema` (a function's `parameters`) falls outside the documented subset."""
    if not isinstance(schema, dict) or schema.get("type") != "object" or "anyOf" in schema:
        return ["/ is not an object schema (the root must be an object, not anyOf)"]
    definitions = schema.get("$defs")
    checker = _Checker(definitions if isinstance(definitions, dict) else {})
    checker.node(schema, "")
    for name, value in checker.definitions.items():
        checker.strings += len(name)
        checker.node(value, f"/$defs/{name}")
    if checker.properties > MAX_PROPERTIES:
        checker.problems.append(f"{checker.properties} object properties (at most {MAX_PROPERTIES})")
    if checker.strings > MAX_STRING_LENGTH:
        checker.problems.append(
            f"{checker.strings} characters of names and values (at most {MAX_STRING_LENGTH})"
        )
    if checker.enum_values > MAX_ENUM_VALUES:
        checker.problems.append(f"{checker.enum_values} enum values (at most {MAX_ENUM_VALUES})")
    levels = checker.levels(schema, ())
    if levels > MAX_NESTING:
        checker.problems.append(f"{levels} levels of nesting (at most {MAX_NESTING})")
    return checker.problems


class _Checker:
    def __init__(self, definitions: dict[str, Any]) -> None:
        self.definitions = definitions
        self.problems: list[str] = []
        self.properties = 0
        self.strings = 0
        self.enum_values = 0
        self._levels: dict[str, int] = {}

    def node(self, schema: Any, where: str) -> None:
        at = where or "/"
        if not isinstance(schema, dict):
            self.problems.append(f"{at} is not a schema object")
            return
        unknown = set(schema) - STRICT_KEYWORDS
        if where and "$defs" in schema:
            unknown.add("$defs")
        if unknown:
            self.problems.append(f"{at} uses {sorted(unknown)}")
        if "$ref" in schema:
            ref = schema["$ref"]
            if set(schema) != {"$ref"}:
                self.problems.append(f"{at} has keywords beside $ref")
            if ref != "#" and (
                not isinstance(ref, str) or ref.removeprefix("#/$defs/") not in self.definitions
            ):
                self.problems.append(f"{at} refers to {ref!r}, not to one of its $defs")
            return
        kinds = schema.get("type")
        kinds = [kinds] if isinstance(kinds, str) else kinds
        if kinds is None:
            if not any(key in schema for key in ("anyOf", "enum", "const")):
                self.problems.append(f"{at} has no type")
            kinds = []
        if not isinstance(kinds, list) or not set(kinds) <= STRICT_TYPES:
            self.problems.append(f"{at} has the type {schema.get('type')!r}")
            kinds = []
        if "format" in schema and schema["format"] not in STRICT_FORMATS:
            self.problems.append(f"{at} has the format {schema['format']!r}")
        if "enum" in schema:
            self.enum(schema["enum"], at)
        if "const" in schema:
            self.strings += len(str(schema["const"]))
        if "object" in kinds or "properties" in schema:
            self.object(schema, where)
        if "array" in kinds and not isinstance(schema.get("items"), dict):
            self.problems.append(f"{at} is an array without an item schema")
        if "items" in schema:
            self.node(schema["items"], f"{where}/items")
        if "anyOf" in schema:
            parts = schema["anyOf"]
            if not isinstance(parts, list) or not parts:
                self.problems.append(f"{at} has an empty anyOf")
            for index, part in enumerate(parts or []):
                self.node(part, f"{where}/anyOf/{index}")

    def object(self, schema: dict[str, Any], where: str) -> None:
        at = where or "/"
        properties = schema.get("properties")
        if not isinstance(properties, dict):
            self.problems.append(f"{at} is an object without properties")
            return
        if schema.get("additionalProperties") is not False:
            self.problems.append(f"{at} lacks additionalProperties: false")
        required = schema.get("required", [])
        if not isinstance(required, list) or sorted(required) != sorted(properties):
            self.problems.append(f"{at} does not require every property")
        self.properties += len(properties)
        for name, value in properties.items():
            self.strings += len(name)
            self.node(value, f"{where}/properties/{name}")

    def enum(self, values: Any, at: str) -> None:
        if not isinstance(values, list) or not values:
            self.problems.append(f"{at} has an empty enum")
            return
        length = sum(len(str(value)) for value in values if value is not None)
        self.enum_values += len(values)
        self.strings += length
        if len(values) > LARGE_ENUM and length > MAX_LARGE_ENUM_LENGTH:
            self.problems.append(
                f"{at} has {len(values)} enum values of {length} characters (at most {MAX_LARGE_ENUM_LENGTH})"
            )

    def levels(self, schema: Any, path: tuple[str, ...]) -> int:
        """The deepest chain of objects/arrays below `schema`, following refs except back into a cycle."""
        if not isinstance(schema, dict):
            return 0
        ref = schema.get("$ref")
        if isinstance(ref, str):
            name = ref.removeprefix("#/$defs/")
            if ref == "#" or name in path or name not in self.definitions:
                return 0
            return self.levels(self.definitions[name], (*path, name))
        own = 1 if "properties" in schema or "items" in schema else 0
        below = [
            *(schema.get("properties") or {}).values(),
            *([schema["items"]] if "items" in schema else []),
        ]
        deepest = max((self.levels(part, path) for part in below), default=0)
        alternatives = max((self.levels(part, path) for part in schema.get("anyOf") or []), default=0)
        return max(own + deepest, alternatives)


_LENGTH = re.compile(
    r"(?:Exactly|At least) (\d+) characters\.|(\d+) to \d+ characters\.|At most (\d+) characters\."
)
_EXAMPLES = {
    "date-time": "2024-01-02T03:04:05Z",
    "date": "2024-01-02",
    "time": "03:04:05Z",
    "duration": "P1D",
    "email": "a@example.com",
    "hostname": "example.com",
    "ipv4": "192.0.2.1",
    "ipv6": "2001:db8::1",
    "uuid": "123e4567-e89b-12d3-a456-426614174000",
}


def model_answer(parameters: dict[str, Any]) -> Any:
    """Arguments a model could give under a strict schema: null for every optional (nullable) field,
    the first branch of every anyOf, the first enum value, a formatted string."""
    definitions = parameters.get("$defs") or {}

    def value(schema: Any, depth: int) -> Any:
        if not isinstance(schema, dict):
            return None
        if "$ref" in schema:
            return value(definitions.get(schema["$ref"].removeprefix("#/$defs/")), depth + 1)
        if "const" in schema:
            return schema["const"]
        if isinstance(schema.get("enum"), list):
            return schema["enum"][0]
        if "anyOf" in schema:
            parts = schema["anyOf"]
            return None if {"type": "null"} in parts else value(parts[0], depth)
        kinds = schema.get("type")
        kinds = [kinds] if isinstance(kinds, str) else kinds or []
        if "null" in kinds:
            return None
        kind = kinds[0] if kinds else "string"
        if kind == "object":
            return {name: value(sub, depth + 1) for name, sub in schema.get("properties", {}).items()}
        if kind == "array":
            if depth > 12:
                return []
            return [value(schema.get("items"), depth + 1) for _ in range(max(1, schema.get("minItems", 1)))]
        if kind in ("integer", "number"):
            low = schema.get("minimum", schema.get("exclusiveMinimum", 0))
            return int(low or 0) + 1
        if kind == "boolean":
            return True
        if schema.get("format") in _EXAMPLES:
            return _EXAMPLES[schema["format"]]
        # as a model would: the lengths strict mode cannot say are in the description
        found = _LENGTH.search(schema.get("description", ""))
        return "a" * int(found.group(1) or found.group(2) or found.group(3) or 0) if found else "abc"

    return value(parameters, 0)
