"""What makes an answer (output) schema different from an input schema (ARCHITECTURE.md, "Output schemas
are bounded"): every property may also be null, and below the cut of nested objects/arrays only a
schema's type and description are left. `SchemaShaper` applies these in `output` mode; `required`,
`additionalProperties: false` and `writeOnly` properties are left out there too."""

from __future__ import annotations

from typing import Any

from ._schema_keywords import TYPES, nullable

Json = Any


def answer_property(schema: Json) -> Json:
    """A property of an answer may also be null: APIs send null for fields their documents never mark
    nullable, and an answer that fails its outputSchema is one a client must reject."""
    return nullable(schema) if isinstance(schema, dict) and schema else schema


def cut(value: dict[str, Any]) -> dict[str, Any]:
    """What is left of a schema below the output-schema cut: its type and its description."""
    kind = value.get("type")
    left: dict[str, Any] = {}
    if isinstance(kind, str) and kind in TYPES:
        left["type"] = kind
    elif isinstance(kind, list) and all(isinstance(k, str) and k in TYPES for k in kind) and kind:
        left["type"] = list(dict.fromkeys(kind))
    if value.get("nullable") is True or value.get("x-nullable") is True:
        left = nullable(left)
    if isinstance(value.get("description"), str) and value["description"].strip():
        left["description"] = value["description"].strip()
    return left
