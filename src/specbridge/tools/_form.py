"""What a form cannot carry: an empty object or an empty array.

In `application/x-www-form-urlencoded` bodies and in query parameters, an object travels as its
fields (`a[b]=1` for `deepObject`, `b=1` for `form`) and an array as its items, so `{}` and `[]`
travel as nothing at all: a required field given empty is absent from the request, and the API
refuses it (Stripe's `components: {}` on `POST /v1/account_sessions`). Where the document requires
such a value and its schema lets it be empty, the input schema asks for at least one field or item
(`minProperties: 1`, `minItems: 1`), so the model fills one, which is what the API needs anyway.
"""

from __future__ import annotations

from typing import Any

Json = Any
_MAX_DEPTH = 32


def nonempty(schema: Json, *, required: bool, depth: int = 0) -> Json:
    """`schema` (a shaped input schema, never changed: a new dict where something is added) with every
    required object or array inside it (required by its parent, wherever the parent sits), itself too
    when `required`, asking for at least one member."""
    if not isinstance(schema, dict) or "$ref" in schema or depth > _MAX_DEPTH:
        return schema
    result = schema
    kind = schema.get("type")
    if required and (kind == "object" or (kind is None and isinstance(schema.get("properties"), dict))):
        fields = schema.get("properties") or isinstance(schema.get("additionalProperties"), dict)
        if not schema.get("required") and "minProperties" not in schema and fields:
            result = {**result, "minProperties": 1}
    elif required and kind == "array" and "minItems" not in schema:
        result = {**result, "minItems": 1}
    properties = schema.get("properties")
    listed = schema.get("required")
    names: list[Any] = listed if isinstance(listed, list) else []
    if isinstance(properties, dict):
        changed = {
            name: nonempty(prop, required=name in names, depth=depth + 1) for name, prop in properties.items()
        }
        changed = {name: value for name, value in changed.items() if value is not properties[name]}
        if changed:
            result = {**result, "properties": {**properties, **changed}}
    return result
