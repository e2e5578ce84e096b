"""A small Hypothesis strategy for values valid against a (shaped, `$ref`-free) JSON Schema: the
keywords the call layer checks (type, enum, const, properties, required, items, lengths, counts, ranges,
four formats, anyOf/allOf-first). hypothesis-jsonschema does not run with the Hypothesis here."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

_FORMATS: dict[str, st.SearchStrategy[str]] = {
    "date": st.dates().map(lambda d: d.isoformat()),
    "date-time": st.datetimes().map(lambda d: d.strftime("%Y-%m-%dT%H:%M:%SZ")),
    "email": st.from_regex(r"\A[a-z]{1,8}@[a-z]{1,8}\.(com|org)\Z"),
    "uuid": st.uuids().map(str),
}
_SAFE_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=12)


def values(schema: Any, depth: int = 0) -> st.SearchStrategy[Any]:
    if schema is True or not isinstance(schema, dict) or depth > 6:
        return st.none() | st.booleans() | st.integers(-1000, 1000) | _SAFE_TEXT
    if schema is False:
        return st.nothing()
    if "const" in schema:
        return st.just(schema["const"])
    if "enum" in schema and isinstance(schema["enum"], list) and schema["enum"]:
        return st.sampled_from(schema["enum"])
    for key in ("anyOf", "oneOf", "allOf"):
        if isinstance(schema.get(key), list) and schema[key]:
            merged = {k: v for k, v in schema.items() if k not in ("anyOf", "oneOf", "allOf")}
            return values({**schema[key][0], **merged}, depth)
    kind = schema.get("type")
    if isinstance(kind, list):
        kinds = [k for k in kind if k != "null"] or ["null"]
        return st.one_of(*(values({**schema, "type": k}, depth) for k in kinds))
    if kind == "null":
        return st.none()
    if kind == "boolean":
        return st.booleans()
    if kind in ("integer", "number"):
        low = schema.get("minimum", schema.get("exclusiveMinimum", -(10**6)))
        high = schema.get("maximum", schema.get("exclusiveMaximum", 10**6))
        low, high = (
            int(low or 0) + (1 if "exclusiveMinimum" in schema else 0),
            int(high or 0) - (1 if "exclusiveMaximum" in schema else 0),
        )
        if kind == "integer":
            return st.integers(low, high)
        return st.integers(low, high) | st.floats(low, high, allow_nan=False, allow_infinity=False)
    if kind == "string":
        if schema.get("format") in _FORMATS:
            return _FORMATS[schema["format"]]
        return st.text(
            st.characters(codec="utf-8", exclude_categories=["Cs"]),
            min_size=schema.get("minLength", 0),
            max_size=min(schema.get("maxLength", 12), 12),
        )
    if kind == "array":
        return st.lists(
            values(schema.get("items", True), depth + 1),
            min_size=schema.get("minItems", 0),
            max_size=min(schema.get("maxItems", 3), 3),
        )
    if kind == "object" or "properties" in schema:
        properties = schema.get("properties", {})
        required = [name for name in schema.get("required", []) if name in properties]
        optional = [name for name in properties if name not in required]
        return st.fixed_dictionaries(
            {name: values(properties[name], depth + 1) for name in required},
            optional={name: values(properties[name], depth + 1) for name in optional},
        )
    return st.none() | st.booleans() | st.integers(-1000, 1000) | _SAFE_TEXT
