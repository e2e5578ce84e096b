"""openapi-core as the judge of a recorded request, with the leniencies the fidelity measurement gives it.

Each leniency makes openapi-core read the wire the way servers of such documents read it, where
openapi-core 0.23 reads less than the document says (docs/benchmarks.md lists them with reasons;
tests/call/test_call_fidelity.py shows each one is needed):

- `path`: the path is percent-decoded before openapi-core reads it (`%2F` excepted), as the server's
  framework does before routing; openapi-core reads the raw path, so `urn%3Ax` fails a `^urn:` pattern.
- `deepObject`: openapi-core reads `deepObject` one level deep and for objects only; OpenAPI leaves
  nesting undefined and Stripe-style servers read `a[b][c]=1`, `a[]=x` and `a[0][b]=1`: read so.
- `+json`: openapi-core parses only `application/json` and `application/vnd.api+json` as JSON; every
  `+json` media type (`application/merge-patch+json`, …) is JSON (RFC 6839).
- `binary`: the bytes of a binary part or body are handed to the schema check as text, since
  openapi-core's OpenAPI 3.1 check says raw bytes are not a `string`.
- `multipart-text`: a multipart text part is cast to its property's scalar type (`integer`, `number`,
  `boolean`) as a server reads it; openapi-core validates the text as it came.
"""

from __future__ import annotations

import re
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from tests.support.upstream import RecordedRequest

LENIENCIES = ("servers", "document", "path", "deepObject", "+json", "binary", "multipart-text")
_BRACKETS = re.compile(r"\[([^\[\]]*)\]")
_installed = False


def _finish(node: Any) -> Any:
    if not isinstance(node, dict):
        return node
    if node and all(key.isdigit() or key.startswith("\0") for key in node):
        ordered = sorted(node.items(), key=lambda kv: int(kv[0].lstrip("\0")))
        return [_finish(value) for _, value in ordered]
    return {key: _finish(value) for key, value in node.items()}


def deep_object_loads(explode: bool, name: str, schema_type: str, location: Any) -> Any:
    """`a[b][c]=1`, `a[]=x`, `a[0][b]=1` into nested objects and arrays."""
    items = location.items(multi=True) if hasattr(location, "getlist") else location.items()
    root: dict[str, Any] = {}
    found = False
    for key, value in items:
        rest = key[len(name) :]
        if not key.startswith(name + "["):
            continue
        tokens = _BRACKETS.findall(rest)
        if "".join(f"[{token}]" for token in tokens) != rest:
            continue
        found = True
        node = root
        for index, token in enumerate(tokens):
            slot = token if token else f"\0{len(node)}"
            if index == len(tokens) - 1:
                node[slot] = value
            else:
                child = node.get(slot)
                if not isinstance(child, dict):
                    child = node[slot] = {}
                node = child
    if not found:
        raise KeyError(name)
    return _finish(root)


def install() -> None:
    """Patch openapi-core once (the measuring process only ever validates)."""
    global _installed
    if _installed:
        return
    _installed = True
    from openapi_core.deserializing.media_types import deserializers as media
    from openapi_core.deserializing.media_types.util import json_loads
    from openapi_core.deserializing.styles import style_deserializers

    style_deserializers["deepObject"] = deep_object_loads

    original = media.MediaTypesDeserializer.get_deserializer_callable

    def get_deserializer_callable(self: Any, mimetype: str) -> Any:
        kind = mimetype.lower()
        if kind.endswith("+json"):
            return json_loads
        found = original(self, mimetype)
        if kind == "multipart/form-data" or kind.startswith("text/") or found is json_loads:
            return found

        def as_text(value: Any, **parameters: str) -> Any:
            result = found(value, **parameters)
            return result.decode("latin-1") if isinstance(result, bytes) else result

        return as_text

    media.MediaTypesDeserializer.get_deserializer_callable = get_deserializer_callable  # type: ignore[method-assign]

    decode_property = media.MediaTypeDeserializer.decode_property_content_type

    def decode_property_content_type(
        self: Any, prop_name: str, prop_schema: Any, location: Any, *rest: Any
    ) -> Any:
        value = decode_property(self, prop_name, prop_schema, location, *rest)
        if not self.mimetype.startswith("multipart"):
            return value
        kind = (prop_schema / "type").read_str("") if "type" in prop_schema else ""
        items = prop_schema / "items" if "items" in prop_schema else None
        if kind == "array" and items is not None and isinstance(value, list):
            item_kind = (items / "type").read_str("") if "type" in items else ""
            return [_cast(item, item_kind) for item in value]
        return _cast(value, kind)

    media.MediaTypeDeserializer.decode_property_content_type = decode_property_content_type  # type: ignore[method-assign]


def _cast(value: Any, kind: str) -> Any:
    if not isinstance(value, str):
        return value
    try:
        if kind == "integer":
            return int(value)
        if kind == "number":
            return float(value)
    except ValueError:
        return value
    if kind == "boolean" and value in ("true", "false"):
        return value == "true"
    return value


class ValidatorRequest:
    """openapi-core's request protocol over what the upstream recorded."""

    def __init__(self, host_url: str, recorded: RecordedRequest) -> None:
        from openapi_core.datatypes import RequestParameters
        from werkzeug.datastructures import Headers, ImmutableMultiDict

        parts = urlsplit(recorded.target)
        path = unquote(re.sub("%2[Ff]", "%252F", parts.path))
        self.host_url = host_url
        self.path = path
        self.full_url_pattern = host_url + path
        self.method = recorded.method.lower()
        cookie: SimpleCookie = SimpleCookie()
        cookie.load(recorded.headers.get("cookie", ""))
        self.parameters = RequestParameters(
            query=ImmutableMultiDict(parse_qsl(parts.query, keep_blank_values=True)),
            header=Headers(recorded.raw_headers),
            cookie=ImmutableMultiDict({name: morsel.value for name, morsel in cookie.items()}),
        )
        self.content_type = recorded.headers.get("content-type", "")
        self.body = recorded.body or None


def kind_of(error: Exception) -> str:
    name = type(error).__name__
    cause = error.__cause__ or error.__context__
    schema_errors = getattr(cause, "schema_errors", None) or ()
    if schema_errors:
        validators = sorted({str(getattr(item, "validator", "?")) for item in schema_errors})
        return f"{name} ({', '.join(validators)})"
    if cause is not None and type(cause).__name__ not in name:
        name += f" ({type(cause).__name__})"
    return name


def detail_of(error: Exception) -> str:
    cause = error.__cause__ or error.__context__
    schema_errors = getattr(cause, "schema_errors", None) or ()
    text = str(error)
    if schema_errors:
        text += ": " + "; ".join(str(getattr(item, "message", item))[:160] for item in schema_errors[:2])
    elif cause is not None:
        text += f": {str(cause)[:200]}"
    return text[:400]
