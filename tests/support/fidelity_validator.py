"""openapi-core as the judge of a recorded request, with the leniencies the fidelity measurement gives it.

Each leniency makes openapi-core read the wire the way servers of such documents read it, where
openapi-core 0.23 reads less than the document says (docs/benchmarks.md lists them with reasons;
tests/call/test_call_fidelity.py shows each one is needed):

- `path`: the path is percent-decoded before openapi-core reads it (`%2F` excepted), as the server's
  framework does before routing; openapi-core reads the raw path, so `urn%3Ax` fails a `^urn:` pattern.
- `deepObject`: openapi-core reads `deepObject` one level deep and for objects only; OpenAPI leaves
  nesting undefined and Stripe-style servers read `a[b][c]=1`, `a[]=x` and `a[0][b]=1`: read so (and a
  scalar under deepObject, which OpenAPI leaves undefined too, as `a=1`).
- `+json`: openapi-core parses only `application/json` and `application/vnd.api+json` as JSON; every
  `+json` media type (`application/merge-patch+json`, …) is JSON (RFC 6839).
- `binary`: the bytes of a binary part or body are handed to the schema check as text, since
  openapi-core's OpenAPI 3.1 check says raw bytes are not a `string`.
- `parameter-readOnly`: `readOnly` means something only for an object's properties (OpenAPI 3.0
  "Relevant only for Schema properties definitions"); openapi-core also applies it to a parameter's own
  schema and refuses a required path parameter whose schema (shared with a property) is `readOnly`.
  The validator's copy of the document drops `readOnly` at the top of parameter schemas.
- `discriminator`: openapi-core resolves a discriminator value without a `mapping` entry as
  `#/components/schemas/<value>`, so `role: developer` fails where the document's branches are named
  otherwise (OpenAI); the validator's copy drops `discriminator` (a hint, "MAY be used") and checks
  `oneOf`/`anyOf` as JSON Schema does, which is stricter.
- `multipart-style`: OpenAPI 3.0 says an `encoding` entry's `style`/`explode` "SHALL be ignored" unless
  the body is form-urlencoded; openapi-core applies them to multipart parts (Stripe's `PostFiles` marks
  its object part `deepObject`, and the part is JSON as 3.0 says). Multipart parts are read by their
  content type.
- `multipart-text`: a multipart text part is cast to its property's scalar type (`integer`, `number`,
  `boolean`) as a server reads it; openapi-core validates the text as it came.
- `multipart-json`: a part whose schema has no `type` of its own (a `oneOf` of objects) but is not a
  string is read as the JSON it was sent as (`Content-Type: application/json`, OpenAPI's default for an
  object); openapi-core picks a part's reading from the `type` keyword alone and reads such a part as
  bytes, so the chosen branch's object arrives as a string.
- `required-readOnly`: "required" on a `readOnly` property applies to answers only (OpenAPI 3.0,
  3.1); openapi-core skips it only where the `readOnly` flag sits in the same schema as `required`,
  not through a `$ref` or in another `allOf` part. The validator's copy drops such names from
  `required` (`required_without_read_only`) where every declaration of the name is `readOnly`.
- `readOnly-redeclared`: a property a base schema marks `readOnly` and a subtype declares again
  without it (PagerDuty's `type`: read-only in `Reference`, a required enum in `Tag`) is the subtype's
  to send, and the API wants it; openapi-core's OpenAPI 3.0 write check refuses it in the base part.
  The validator's copy drops `readOnly` from the declarations of a name that another declaration of
  the same object (its own properties and its `allOf` parts) declares writable
  (`writable_where_redeclared`).
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterator
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from tests.support.upstream import RecordedRequest

LENIENCIES = (
    "servers",
    "document",
    "path",
    "deepObject",
    "+json",
    "binary",
    "parameter-readOnly",
    "multipart-text",
    "multipart-json",
    "required-readOnly",
    "readOnly-redeclared",
)
_BRACKETS = re.compile(r"\[([^\[\]]*)\]")


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
        if name in location:  # a scalar under deepObject: `a=1`, as those servers read it
            values = location.getlist(name) if hasattr(location, "getlist") else [location[name]]
            values = [v.decode("utf-8", "replace") if isinstance(v, bytes) else v for v in values]
            return values if schema_type == "array" else values[0]
        raise KeyError(name)
    return _finish(root)


@contextlib.contextmanager
def lenient() -> Iterator[None]:
    """openapi-core with the leniencies above, restored on exit."""
    from openapi_core.deserializing.media_types import deserializers as media
    from openapi_core.deserializing.media_types.util import json_loads
    from openapi_core.deserializing.styles import style_deserializers

    original_deep = style_deserializers["deepObject"]
    original_callable = media.MediaTypesDeserializer.get_deserializer_callable
    original_decode = media.MediaTypeDeserializer.decode_property_content_type

    def get_deserializer_callable(self: Any, mimetype: str) -> Any:
        kind = mimetype.lower()
        if kind.endswith("+json"):
            return json_loads
        found = original_callable(self, mimetype)
        if kind == "multipart/form-data" or kind.startswith("text/") or found is json_loads:
            return found

        def as_text(value: Any, **parameters: str) -> Any:
            result = found(value, **parameters)
            return result.decode("latin-1") if isinstance(result, bytes) else result

        return as_text

    def decode_property_content_type(self: Any, name: str, schema: Any, location: Any, *rest: Any) -> Any:
        value = original_decode(self, name, schema, location, *rest)
        if not self.mimetype.startswith("multipart"):
            return value
        with schema.resolve() as resolved:
            contents = resolved.contents
        kinds = _kinds(contents)
        if isinstance(value, str) and "string" not in kinds and value[:1] in ("{", "["):
            with contextlib.suppress(ValueError):
                return json.loads(value)
        if "array" in kinds and isinstance(value, list):
            items = contents.get("items") if isinstance(contents, dict) else None
            return [_cast(item, _kinds(items)) for item in value]
        return _cast(value, kinds)

    original_form = media.MediaTypeDeserializer.decode

    def decode(self: Any, location: Any, schema_only: bool = False) -> Any:
        properties = original_form(self, location, schema_only)
        if not schema_only and self.mimetype == "application/x-www-form-urlencoded":
            _read_form.append(dict(properties))
        return properties

    original_property = media.MediaTypeDeserializer.decode_property

    def decode_property(self: Any, name: str, schema: Any, location: Any) -> Any:
        if self.mimetype.startswith("multipart") and self.encoding is not None and name in self.encoding:
            return self.decode_property_content_type(name, schema, location, self.encoding / name)
        return original_property(self, name, schema, location)

    style_deserializers["deepObject"] = deep_object_loads
    media.MediaTypeDeserializer.decode = decode  # type: ignore[method-assign]
    media.MediaTypeDeserializer.decode_property = decode_property  # type: ignore[method-assign,assignment]
    media.MediaTypesDeserializer.get_deserializer_callable = get_deserializer_callable  # type: ignore[method-assign]
    media.MediaTypeDeserializer.decode_property_content_type = decode_property_content_type  # type: ignore[method-assign,assignment]
    try:
        yield
    finally:
        style_deserializers["deepObject"] = original_deep
        media.MediaTypeDeserializer.decode = original_form  # type: ignore[method-assign]
        media.MediaTypeDeserializer.decode_property = original_property  # type: ignore[method-assign]
        media.MediaTypesDeserializer.get_deserializer_callable = original_callable  # type: ignore[method-assign]
        media.MediaTypeDeserializer.decode_property_content_type = original_decode  # type: ignore[method-assign]


def parameters_without_read_only(document: dict[str, Any]) -> dict[str, Any]:
    """A copy of `document` whose parameter schemas carry no top-level `readOnly` (a `$ref`'d schema
    is copied in without it); everything else is shared, unchanged."""
    schemas = (document.get("components") or {}).get("schemas") or {}

    def fixed(parameter: Any) -> Any:
        if not isinstance(parameter, dict) or not isinstance(parameter.get("schema"), dict):
            return parameter
        schema = parameter["schema"]
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
            target = schemas.get(ref.rsplit("/", 1)[1])
            if isinstance(target, dict) and target.get("readOnly") is True:
                schema = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
        if schema.get("readOnly") is not True:
            return parameter
        return {**parameter, "schema": {k: v for k, v in schema.items() if k != "readOnly"}}

    def fixed_list(value: Any) -> Any:
        return [fixed(item) for item in value] if isinstance(value, list) else value

    paths = {}
    for key, item in (document.get("paths") or {}).items():
        if not isinstance(item, dict):
            paths[key] = item
            continue
        paths[key] = {
            name: (
                {**op, "parameters": fixed_list(op.get("parameters"))}
                if isinstance(op, dict) and "parameters" in op
                else op
            )
            if name != "parameters"
            else fixed_list(op)
            for name, op in item.items()
        }
    components = dict(document.get("components") or {})
    if isinstance(components.get("parameters"), dict):
        components["parameters"] = {name: fixed(p) for name, p in components["parameters"].items()}
    return {**document, "paths": paths, "components": components}


def _schemas_of(document: dict[str, Any]) -> dict[str, Any]:
    return (document.get("components") or {}).get("schemas") or {}


def _resolver(document: dict[str, Any]) -> Any:
    schemas = _schemas_of(document)

    def resolve(node: Any, depth: int = 0) -> Any:
        while isinstance(node, dict) and isinstance(node.get("$ref"), str) and depth < 16:
            ref = node["$ref"]
            if not ref.startswith("#/components/schemas/"):
                return node
            node, depth = schemas.get(ref.rsplit("/", 1)[1], {}), depth + 1
        return node

    return resolve


def _declarations(resolve: Any) -> Any:
    """`declared(node)`: the property names an object (with its `allOf` parts) declares `readOnly`,
    and the names it declares without the flag."""

    def read_only(prop: Any, depth: int = 0) -> bool:
        prop = resolve(prop)
        if not isinstance(prop, dict) or depth > 16:
            return False
        parts: list[Any] = prop["allOf"] if isinstance(prop.get("allOf"), list) else []
        return prop.get("readOnly") is True or any(read_only(part, depth + 1) for part in parts)

    def declared(node: Any, depth: int = 0) -> tuple[set[str], set[str]]:
        node = resolve(node)
        if not isinstance(node, dict) or depth > 16:
            return set(), set()
        hidden: set[str] = set()
        shown: set[str] = set()
        for name, prop in (node.get("properties") or {}).items():
            (hidden if read_only(prop) else shown).add(name)
        for part in node.get("allOf") or []:
            part_hidden, part_shown = declared(part, depth + 1)
            hidden |= part_hidden
            shown |= part_shown
        return hidden, shown

    return declared


def required_without_read_only(document: dict[str, Any]) -> dict[str, Any]:
    """A copy of `document` whose `required` lists leave out the properties that are `readOnly` in
    every declaration of their object: on the property, through its `$ref`, or in another `allOf`
    part (a `$ref`'d part that requires such a name is copied in without it)."""
    resolve = _resolver(document)
    declared = _declarations(resolve)

    def names(node: Any) -> set[str]:
        hidden, shown = declared(node)
        return set(hidden) - set(shown)

    def fixed(node: Any, inherited: frozenset[str] = frozenset(), depth: int = 0) -> Any:
        if isinstance(node, list):
            return [fixed(item, frozenset(), depth + 1) for item in node]
        if not isinstance(node, dict) or depth > 200:
            return node
        hidden = inherited | (names(node) if "required" in node or "allOf" in node else set())
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key == "required" and isinstance(value, list) and hidden.intersection(value):
                kept = [name for name in value if name not in hidden]
                if kept:
                    out[key] = kept
            elif key == "allOf" and isinstance(value, list) and hidden:
                out[key] = [
                    fixed(resolve(part), frozenset(hidden), depth + 1)
                    if hidden.intersection(resolve(part).get("required") or [])
                    else fixed(part, frozenset(hidden), depth + 1)
                    for part in value
                ]
            else:
                out[key] = fixed(value, frozenset(), depth + 1)
        return out

    result: dict[str, Any] = fixed(document)
    return result


def writable_where_redeclared(document: dict[str, Any]) -> dict[str, Any]:
    """A copy of `document` where a property declared both `readOnly` and writable in one object (its
    own properties and its `allOf` parts, through `$ref`s) is `readOnly` in none of them: each `$ref`'d
    part or property that says `readOnly` for such a name is copied in without the flag."""
    resolve = _resolver(document)
    declared = _declarations(resolve)

    def writable(prop: Any, depth: int) -> Any:
        target = resolve(prop)
        if not isinstance(target, dict) or depth > 16:
            return prop
        out = {key: value for key, value in target.items() if key != "readOnly"}
        if isinstance(target.get("allOf"), list):
            out["allOf"] = [writable(part, depth + 1) for part in target["allOf"]]
        return out

    def stripped(node: Any, names: frozenset[str], depth: int) -> Any:
        target = resolve(node)
        if not isinstance(target, dict) or depth > 16:
            return node
        out = dict(target)
        if isinstance(target.get("properties"), dict):
            out["properties"] = {
                name: writable(prop, 0) if name in names else prop
                for name, prop in target["properties"].items()
            }
        if isinstance(target.get("allOf"), list):
            out["allOf"] = [stripped(part, names, depth + 1) for part in target["allOf"]]
        return out

    def fixed(node: Any, depth: int = 0) -> Any:
        if isinstance(node, list):
            return [fixed(item, depth + 1) for item in node]
        if not isinstance(node, dict) or depth > 200:
            return node
        if isinstance(node.get("allOf"), list):
            hidden, shown = declared(node)
            if hidden & shown:
                node = stripped(node, frozenset(hidden & shown), 0)
        return {key: fixed(value, depth + 1) for key, value in node.items()}

    result: dict[str, Any] = fixed(document)
    return result


def _kinds(schema: Any) -> list[str]:
    """The scalar types a property schema allows, through `type` lists and `anyOf`/`oneOf` branches."""
    kinds: list[str] = []
    kind = schema.get("type") if isinstance(schema, dict) else None
    kinds += [kind] if isinstance(kind, str) else [k for k in kind or [] if isinstance(k, str)]
    for key in ("anyOf", "oneOf"):
        for branch in (schema.get(key) or []) if isinstance(schema, dict) else []:
            kinds += _kinds(branch)
    return kinds


def _cast(value: Any, kinds: list[str]) -> Any:
    if not isinstance(value, str) or "string" in kinds:
        return value
    for kind in kinds:
        try:
            if kind == "integer":
                return int(value)
            if kind == "number":
                return float(value)
        except ValueError:
            continue
        if kind == "boolean" and value in ("true", "false"):
            return value == "true"
    return value


def without_discriminators(node: Any) -> Any:
    """A copy without `discriminator` anywhere: `oneOf`/`anyOf` are then checked as JSON Schema says."""
    if isinstance(node, dict):
        return {key: without_discriminators(value) for key, value in node.items() if key != "discriminator"}
    if isinstance(node, list):
        return [without_discriminators(item) for item in node]
    return node


class ValidatorRequest:
    """openapi-core's request protocol over what the upstream recorded."""

    def __init__(self, host_url: str, recorded: RecordedRequest, *, decode_path: bool = True) -> None:
        from openapi_core.datatypes import RequestParameters
        from werkzeug.datastructures import Headers, ImmutableMultiDict

        parts = urlsplit(recorded.target)
        path = unquote(re.sub("%2[Ff]", "%252F", parts.path)) if decode_path else parts.path
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


# Media types openapi-core decodes; a body of any other type reaches its schema check as raw bytes.
_DECODED = (
    "application/json",
    "application/x-www-form-urlencoded",
    "multipart/form-data",
    "text/",
    "+json",
    "xml",
)


_read_form: list[dict[str, Any]] = []  # what openapi-core read from the last form body it decoded


class FieldNotRead(Exception):
    """A form field was sent that the document's encoding of the body does not read into any property."""


def judge(openapi: Any, request: ValidatorRequest) -> None:
    """Raise why openapi-core refuses `request`; also refuse a form field openapi-core's reading of
    the document drops (a nested object sent as JSON text where the encoding says deepObject, a field
    the schema does not declare): openapi-core would pass such a request without ever reading it."""
    _read_form.clear()
    openapi.validate_request(request)
    kind = request.content_type.split(";")[0].strip().lower()
    if kind != "application/x-www-form-urlencoded" or not request.body or not _read_form:
        return
    decoded = _read_form[-1]
    sent = {
        key.split("[", 1)[0] for key, _ in parse_qsl(request.body.decode("latin-1"), keep_blank_values=True)
    }
    unread = sorted(sent - set(decoded))
    if unread:
        raise FieldNotRead(f"form fields the document's encoding does not read: {', '.join(unread[:5])}")


def unverifiable_cause(error: Exception, scheme: str, recorded: RecordedRequest) -> str:
    """Why no request could pass this check, when that is so; "" when the failure is the request's.

    - the operation accepts only security schemes other than the one the API's single credential
      stands for (a gateway API holds one credential);
    - a path parameter is missing: the gateway fills every placeholder of the path template or sends
      nothing, so the document declares a path parameter its template lacks;
    - the body's media type is one openapi-core cannot decode (`application/jwt`, …) and its schema
      is not a string: the check compares raw bytes with an object schema.
    """
    name = type(error).__name__
    text = str(error)
    if name == "SecurityValidationError" and scheme and f"'{scheme}'" not in text:
        return "not judged: the operation accepts only another credential than the API's one"
    if name == "MissingRequiredParameter" and text.startswith("Missing required path parameter"):
        return "not judged: the document declares a path parameter its path template lacks"
    kind = recorded.headers.get("content-type", "").split(";")[0].strip().lower()
    if name == "InvalidRequestBody" and kind and not any(part in kind for part in _DECODED):
        cause = error.__cause__ or error.__context__
        errors = getattr(cause, "schema_errors", None) or ()
        if errors and all(getattr(item, "validator", "") == "type" for item in errors):
            return f"not judged: openapi-core cannot decode a {kind} body for its schema"
    return ""


def _message(item: Any) -> str:
    """A schema error's own words, its deepest cause's, and where in the body it is."""
    where = "/".join(str(part) for part in getattr(item, "absolute_path", ()))
    context = getattr(item, "context", None) or []
    deepest = min(context, key=lambda e: len(list(e.absolute_path)) * -1) if context else None
    text = str(getattr(item, "message", item))[:120]
    if deepest is not None:
        text += f" [{'/'.join(str(p) for p in deepest.absolute_path)}: {str(deepest.message)[:160]}]"
    return f"at /{where}: {text}"


def detail_of(error: Exception) -> str:
    cause = error.__cause__ or error.__context__
    schema_errors = getattr(cause, "schema_errors", None) or ()
    text = str(error)[:80]
    if schema_errors:
        text += ": " + "; ".join(_message(item) for item in schema_errors[:2])
    elif cause is not None:
        text += f": {str(cause)[:200]}"
    return text[:600]
