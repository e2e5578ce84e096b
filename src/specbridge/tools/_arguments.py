"""Four namespaces into one: path, query, header and cookie parameters and the body become one object
of arguments, with a map from each argument back to its location and original name.

When two arguments would share a name, every one of them gets its location in front (`path_id`,
`body_id`). If a prefixed name is taken as well, the later ones (in location order, then original name)
get `_2`, `_3`, ... so the result never depends on the order of the document's keys.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from ..document import ApiDocument, MediaType, Operation, Parameter, Schema
from ._form import nonempty
from ._headers import FIXABLE_HEADERS, is_forbidden_header
from ._model import LOCATION_ORDER, Argument, ArgumentLocation, Body, LeftOut
from ._naming import argument_name
from ._schema import SchemaShaper

Json = Any
_PATH_TEMPLATE = re.compile(r"\{([^{}]+)\}")


@dataclass(frozen=True, slots=True)
class ArgumentPlan:
    arguments: tuple[Argument, ...]
    body: Body | None
    left_out: tuple[LeftOut, ...]
    needs: frozenset[str]  # `$defs` the argument schemas refer to
    fixed_headers: tuple[tuple[str, str], ...] = ()


def credential_names(document: ApiDocument) -> dict[str, frozenset[str]]:
    """apiKey names per location: the gateway sets these, the agent never does."""
    names: dict[str, set[str]] = {"header": set(), "query": set(), "cookie": set()}
    for scheme in document.security_schemes:
        if scheme.type == "apiKey" and scheme.location in names and scheme.parameter_name:
            names[scheme.location].add(scheme.parameter_name.lower())
    return {location: frozenset(values) for location, values in names.items()}


def body_media(content: tuple[MediaType, ...]) -> MediaType | None:
    """JSON first, then form, then multipart, then whatever else the operation accepts."""

    def rank(media: MediaType) -> int:
        kind = media.content_type.lower().split(";")[0].strip()
        if kind == "application/json" or kind.endswith("+json"):
            return 0
        if kind == "application/x-www-form-urlencoded":
            return 1
        if kind == "multipart/form-data":
            return 2
        if kind in ("*/*", "application/*"):
            return 4
        return 3

    return min(content, key=rank) if content else None


def plan_arguments(
    operation: Operation, document: ApiDocument, shaper: SchemaShaper, credentials: dict[str, frozenset[str]]
) -> ArgumentPlan:
    candidates: list[Argument] = []
    left_out: list[LeftOut] = []
    needs: set[str] = set()
    fixed: dict[str, tuple[str, str]] = {}

    for parameter in operation.parameters:
        reason = _left_out_reason(parameter, credentials)
        if reason:
            left_out.append(LeftOut(parameter.name, parameter.location, reason, parameter.pointer))
            value = fixed_header_value(parameter, shaper)
            if value is not None:
                fixed[parameter.name.lower()] = (parameter.name, value)
            continue
        shaped = shaper.shape(parameter.schema, "input")
        needs.update(shaped.needs)
        value = shaped.value
        if parameter.location in ("query", "cookie") and parameter.content_type is None:
            value = nonempty(value, required=parameter.required)
        candidates.append(
            Argument(
                name=argument_name(parameter.name),
                location=parameter.location,
                original=parameter.name,
                required=parameter.required,
                schema=_described(value, parameter.description),
                style=parameter.style,
                explode=parameter.explode,
                allow_reserved=parameter.allow_reserved,
                content_type=parameter.content_type,
                pointer=parameter.pointer,
            )
        )
    declared = {argument.original for argument in candidates if argument.location == "path"}
    declared |= {item.name for item in left_out if item.location == "path"}
    for name in dict.fromkeys(_PATH_TEMPLATE.findall(operation.path)):
        if name not in declared:
            candidates.append(
                Argument(
                    argument_name(name),
                    "path",
                    name,
                    True,
                    {"type": "string"},
                    "simple",
                    False,
                    pointer=operation.pointer,
                )
            )

    body = None
    request_body = operation.request_body
    media = body_media(request_body.content) if request_body else None
    if request_body is not None and media is not None:
        fields = _object_fields(media.schema, shaper) if _is_structured(media.content_type) else None
        body = Body(
            content_type=media.content_type,
            whole=fields is None,
            required=request_body.required,
            encoding=media.encoding,
            pointer=request_body.pointer,
            min_properties=_min_properties(media.schema, shaper) if fields is not None else 0,
        )
        if fields is None:
            schema, body_needs = _whole_body_schema(media, shaper)
            needs.update(body_needs)
            candidates.append(
                Argument(
                    "body",
                    "body",
                    "",
                    request_body.required,
                    _described(schema, request_body.description),
                    pointer=request_body.pointer,
                )
            )
        else:
            properties, required, hidden = fields
            form = media.content_type.lower().split(";")[0].strip() == "application/x-www-form-urlencoded"
            for name, (value, base) in properties.items():
                if name in hidden:
                    continue
                shaped = shaper.shape(Schema(value, base), "input")
                needs.update(shaped.needs)
                candidates.append(
                    Argument(
                        argument_name(name),
                        "body",
                        name,
                        name in required,
                        nonempty(shaped.value, required=name in required) if form else shaped.value,
                        pointer=request_body.pointer,
                    )
                )
    return ArgumentPlan(
        tuple(_resolve_clashes(candidates)), body, tuple(left_out), frozenset(needs), tuple(fixed.values())
    )


def fixed_header_value(parameter: Parameter, shaper: SchemaShaper) -> str | None:
    """The one value a gateway-owned header parameter can take (`const`, a one-value `enum`, or a
    `default`), when it is a header the gateway may take from the document and a valid header value."""
    if parameter.location != "header" or parameter.name.strip().lower() not in FIXABLE_HEADERS:
        return None
    _, schema = shaper.resolve(parameter.schema.value, parameter.schema.base)
    if not isinstance(schema, dict):
        return None
    if "const" in schema:
        value = schema["const"]
    elif isinstance(schema.get("enum"), list) and len(schema["enum"]) == 1:
        value = schema["enum"][0]
    elif "default" in schema:
        value = schema["default"]
    else:
        return None
    if not isinstance(value, str | int | float) or isinstance(value, bool):
        return None
    text = str(value).strip()
    if not text or not all(" " <= ch <= "~" or ch == "\t" for ch in text):
        return None
    return text


def _left_out_reason(parameter: Parameter, credentials: dict[str, frozenset[str]]) -> str:
    lowered = parameter.name.lower()
    if parameter.location == "header" and is_forbidden_header(parameter.name, credentials["header"]):
        return "the gateway owns this header; an argument may never set it"
    if parameter.location in ("query", "cookie") and lowered in credentials[parameter.location]:
        return "the stored credential is sent here; an argument may never set it"
    return ""


def _described(schema: Json, description: str) -> Json:
    if description and isinstance(schema, dict) and "description" not in schema:
        return {**schema, "description": description}
    if description and schema is True:
        return {"description": description}
    return schema


def _is_structured(content_type: str) -> bool:
    kind = content_type.lower().split(";")[0].strip()
    return (
        kind == "application/json"
        or kind.endswith("+json")
        or kind in ("application/x-www-form-urlencoded", "multipart/form-data")
    )


def _object_fields(
    schema: Schema | None, shaper: SchemaShaper
) -> tuple[dict[str, tuple[Json, str]], set[str], set[str]] | None:
    """An object body's top-level properties (through `$ref` and `allOf`), the required ones and the
    read-only ones, or None if it is not one. A name is read-only when every declaration of it, in any
    part, says so: a writable redeclaration wins, and its schema is the argument's."""
    if schema is None:
        return None
    # A recursive object body is still an object: its fields become arguments, and the fields that
    # lead back into the cycle refer to `$defs`.
    properties: dict[str, tuple[Json, str]] = {}
    required: set[str] = set()
    hidden: set[str] = set()
    shown: set[str] = set()
    if not _collect_fields(schema.value, schema.base, shaper, properties, required, 0, (hidden, shown)):
        return None
    return (properties, required, hidden - shown) if properties else None


def _collect_fields(
    value: Json,
    base: str,
    shaper: SchemaShaper,
    properties: dict[str, tuple[Json, str]],
    required: set[str],
    depth: int,
    declared: tuple[set[str], set[str]],  # the names declared read-only, and declared writable
) -> bool:
    base, node = shaper.resolve(value, base)
    if not isinstance(node, dict) or depth > 16:
        return False
    if any(key in node for key in ("oneOf", "anyOf", "not", "if")) or node.get("nullable") is True:
        return False
    kind = node.get("type")
    if kind not in (None, "object"):
        return False
    parts = node.get("allOf")
    if isinstance(parts, list):
        for part in parts:
            if not _collect_fields(part, base, shaper, properties, required, depth + 1, declared):
                return False
    own = node.get("properties")
    if isinstance(own, dict):
        hidden, shown = declared
        for name, prop in own.items():
            if not isinstance(prop, dict | bool):
                continue
            key = str(name)
            if shaper.hidden_input(prop, base):
                hidden.add(key)
                if key not in shown:
                    properties[key] = (prop, base)
            else:
                shown.add(key)
                properties[key] = (prop, base)
    elif kind != "object" and not isinstance(parts, list):
        return False
    if isinstance(node.get("required"), list):
        required.update(name for name in node["required"] if isinstance(name, str))
    if depth == 0:
        for name in sorted(required - properties.keys()):  # required, never described: any value
            properties[name] = ({}, base)
    return True


def _min_properties(schema: Schema | None, shaper: SchemaShaper, depth: int = 0) -> int:
    """The largest `minProperties` of an object body, its `$ref` target and its `allOf` parts."""
    if schema is None or depth > 16:
        return 0
    base, node = shaper.resolve(schema.value, schema.base)
    if not isinstance(node, dict):
        return 0
    own = node.get("minProperties")
    found = own if isinstance(own, int) and not isinstance(own, bool) else 0
    parts = node.get("allOf")
    for part in parts if isinstance(parts, list) else []:
        found = max(found, _min_properties(Schema(part, base), shaper, depth + 1))
    return found


def _whole_body_schema(media: MediaType, shaper: SchemaShaper) -> tuple[Json, frozenset[str]]:
    kind = media.content_type.lower().split(";")[0].strip()
    if media.schema is not None and _is_structured(kind):
        shaped = shaper.shape(media.schema, "input")
        return shaped.value, shaped.needs
    if _format_of(media.schema, shaper) == "byte":
        # OpenAPI's base64 *text*, whatever the media type: the text is the body, sent as given.
        return {"type": "string", "contentEncoding": "base64"}, frozenset()
    if _is_binary_body(kind, media.schema, shaper):
        # Bytes travel as base64 text; the gateway decodes them before sending.
        schema = {"type": "string", "contentMediaType": kind or "application/octet-stream"}
        return {**schema, "contentEncoding": "base64"}, frozenset()
    return {"type": "string", "contentMediaType": kind}, frozenset()


_BINARY_FAMILIES = ("image/", "audio/", "video/", "font/")
_BINARY_TYPES = frozenset({"", "*/*", "application/octet-stream", "application/pdf", "application/zip",
                           "application/gzip", "application/x-tar", "application/x-gzip"})  # fmt: skip


def _is_binary_body(kind: str, schema: Schema | None, shaper: SchemaShaper) -> bool:
    """A body of bytes: a binary media type, or a string schema with `format: binary`."""
    if kind.startswith(_BINARY_FAMILIES) or kind in _BINARY_TYPES:
        return True
    return _format_of(schema, shaper) == "binary"


def _format_of(schema: Schema | None, shaper: SchemaShaper) -> str | None:
    if schema is None:
        return None
    _, node = shaper.resolve(schema.value, schema.base)
    found = node.get("format") if isinstance(node, dict) else None
    return found if isinstance(found, str) else None


def _resolve_clashes(candidates: list[Argument]) -> list[Argument]:
    counts: dict[str, int] = {}
    for argument in candidates:
        counts[argument.name] = counts.get(argument.name, 0) + 1
    renamed = [
        replace(argument, name=argument_name(f"{argument.location}_{argument.name}"))
        if counts[argument.name] > 1
        else argument
        for argument in candidates
    ]
    order = sorted(
        range(len(renamed)),
        key=lambda i: (
            renamed[i].name != candidates[i].name,
            _location_rank(renamed[i].location),
            renamed[i].original,
        ),
    )
    taken: set[str] = set()
    for position in order:
        argument = renamed[position]
        name, suffix = argument.name, 2
        while name in taken:
            name = argument_name(f"{argument.name}_{suffix}")
            suffix += 1
        taken.add(name)
        if name != argument.name:
            renamed[position] = replace(argument, name=name)
    return renamed


def _location_rank(location: ArgumentLocation) -> int:
    return LOCATION_ORDER.index(location)
