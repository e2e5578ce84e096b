"""The checks of a config operation's `request` and `response` schemas and of its URL template, so a
connector that is mistyped is a config error, not a tool that sends any JSON or a path the API never had.

- `check_schema`: the schema against the JSON Schema 2020-12 meta-schema, with formats asserted (a
  `pattern` must compile), when the config is read. `request: {type: objekt}` is an error, not a
  free-form body.
- `check_refs`: every `$ref` of the schemas resolved in the API's document as served (the config's
  operations alone, or merged into the `spec`), once it is built: a `$ref` to nothing is an error.
- `template_names`: the `{name}`s of a path, parsed strictly: an unclosed `{`, a stray `}`, an empty or
  repeated name, or a `{` in the query is an error (it would be sent as `%7B`).

Messages name the key path and what is valid, never the value found (docs/configuration.md).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from typing import Any

import jsonschema_rs

from .._errors import ConfigError

Key = list[str | int]
Fail = Callable[[Key, str], ConfigError]
DIALECT = "https://json-schema.org/draft/2020-12/schema"
# Keywords whose value is data, not a schema: a `$ref` inside them is not one.
_DATA_KEYWORDS = frozenset({"enum", "const", "default", "examples", "example", "x-examples"})
# Keywords whose value maps names to subschemas: a key there is a name, not a keyword.
_SCHEMA_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})
_HINTS = {
    "type": "one of array, boolean, integer, null, number, object, string (or a list of them)",
    "pattern": "a regular expression (ECMA 262) that compiles",
    "patternProperties": "a map whose keys are regular expressions that compile",
    "$ref": "a URI reference, e.g. '#/components/schemas/Order'",
    "required": "a list of distinct property names",
    "enum": "a list of values",
    "properties": "a map of property names to schemas",
    "items": "a schema",
    "format": "a string",
}
_TEMPLATE = re.compile(r"\{([^{}]*)\}")


@functools.cache
def _meta() -> Any:
    return jsonschema_rs.Draft202012Validator({"$ref": DIALECT}, validate_formats=True)


def check_schema(schema: Any, key: Key, fail: Fail) -> None:
    """Raise for the first place where `schema` is not a JSON Schema 2020-12 schema."""
    if schema is None:
        return
    if isinstance(schema, dict) and schema.get("$schema", DIALECT).rstrip("#") != DIALECT:
        raise fail(
            [*key, "$schema"], f"a config schema is JSON Schema 2020-12 ({DIALECT}); leave `$schema` out"
        )
    error = next(iter(_meta().iter_errors(schema)), None)
    if error is None:
        return
    path: Key = list(error.instance_path)
    if not path:
        raise fail(key, "is not a JSON Schema: an object of keywords, or true or false")
    last, parent = path[-1], path[-2] if len(path) > 1 else None
    if isinstance(last, int) or parent in _SCHEMA_MAPS:
        hint = "is not a schema: an object of keywords, or true or false"
    else:
        hint = f"is not valid JSON Schema 2020-12; `{last}` takes {_HINTS.get(str(last), 'what the 2020-12 meta-schema says')}"
    raise fail([*key, *path], hint)


def schema_refs(schema: Any, path: Key | None = None) -> Iterator[tuple[Key, str]]:
    """Every `$ref` of `schema` (where it is, what it names), not looking into data keywords."""
    path = path or []
    if isinstance(schema, list):
        for index, item in enumerate(schema):
            yield from schema_refs(item, [*path, index])
        return
    if not isinstance(schema, dict):
        return
    for name, value in schema.items():
        if name == "$ref" and isinstance(value, str):
            yield [*path, name], value
        elif name in _SCHEMA_MAPS and isinstance(value, dict):
            for member, subschema in value.items():
                yield from schema_refs(subschema, [*path, name, member])
        elif name not in _DATA_KEYWORDS:
            yield from schema_refs(value, [*path, name])


def check_refs(document: Any, api: str, operations: Any, source: str) -> None:
    """Every `$ref` of each operation's `request`/`response`, resolved in `document` (the API's document
    as served); a ConfigError naming the first that leads nowhere."""
    from ..document import UnresolvedRef
    from ._schema import key_path

    resolver = document.resolver
    for operation in operations:
        for part in ("request", "response"):
            for where, ref in schema_refs(getattr(operation, part)):
                if ref.startswith("#") and not ref.startswith("#/"):
                    continue  # an anchor or the schema itself: resolved by the schema, not the document
                try:
                    resolver.resolve(resolver.root_base, ref)
                except UnresolvedRef as error:
                    raise ConfigError(
                        f"{error.reason} (a config schema's `$ref` is read in the API's document: "
                        "'#/components/schemas/NAME' beside an OpenAPI 3 `spec`, '#/definitions/NAME' beside "
                        "a Swagger 2.0 one)",
                        source=source,
                        key=key_path(["apis", api, "operations", operation.id, part, *where]),
                    ) from None


def template_names(path: str, key: Key, fail: Fail) -> list[str]:
    """The `{name}`s of the path part of `path`, in order, each once; a ConfigError for anything else
    that has a brace."""
    route, _, query = path.partition("?")
    if "{" in query or "}" in query:
        raise fail(
            key,
            "has a `{` or `}` in its query; a `{name}` is a path parameter (a query parameter goes under `parameters.query`)",
        )
    names: list[str] = []
    for found in _TEMPLATE.finditer(route):
        name = found.group(1)
        if not name.strip() or "/" in name:
            raise fail(key, "has an empty `{}` or a `/` inside braces; a path parameter is `{name}`")
        if name in names:
            raise fail(key, "names one path parameter twice; each `{name}` appears once")
        names.append(name)
    rest = _TEMPLATE.sub("", route)
    if "{" in rest:
        raise fail(key, "has a `{` that is not closed; a path parameter is `{name}`")
    if "}" in rest:
        raise fail(key, "has a `}` that opens nowhere; a path parameter is `{name}`")
    return names
