"""The JSON Schema 2020-12 vocabulary that shaping keeps, and the two rewrites both directions share
(`nullable`: OpenAPI 3.0's `nullable: true` as 2020-12 says it; `is_number`: a finite JSON number), and
`is_regex`: a pattern a JSON Schema validator compiles."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import jsonschema_rs

TYPES = frozenset({"string", "number", "integer", "boolean", "array", "object", "null"})
COUNTS = frozenset(
    (
        "minLength",
        "maxLength",
        "minItems",
        "maxItems",
        "minProperties",
        "maxProperties",
        "minContains",
        "maxContains",
    )
)
NUMBERS = frozenset({"minimum", "maximum"})
SCHEMA_MAPS = frozenset(("patternProperties", "dependentSchemas"))
SCHEMA_ONES = frozenset(
    (
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
)
SCHEMA_LISTS = frozenset(("allOf", "anyOf", "oneOf", "prefixItems"))
STRINGS = frozenset(("format", "contentMediaType", "contentEncoding", "pattern"))


def nullable(schema: dict[str, Any]) -> dict[str, Any]:
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


def is_number(value: Any) -> bool:
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and value == value
        and abs(value) != float("inf")
    )


@lru_cache(maxsize=4096)
def is_regex(pattern: str) -> bool:
    """Whether `pattern` is a regular expression as JSON Schema reads them (ECMA-262, as jsonschema-rs
    compiles it). A document's `pattern: "[a-"` or Python's `\\Z` would make a model provider reject the
    whole tool list, so shaping drops such a pattern."""
    try:
        jsonschema_rs.Draft202012Validator({"pattern": pattern})
    except (jsonschema_rs.ValidationError, ValueError):
        return False
    return True
