"""A document broken anywhere, in any way, gets a clear error or usable tools, never a crash.

Hypothesis breaks the example shop and a Swagger 2.0 document at random places (a value of another
type, a deleted key, a `$ref` to any node, a node nested in itself, keywords with impossible values)
and runs everything a document feeds: reading, conversion, lint in every format, every export, the
argument check, the request builder and the search index. Only `SpecbridgeError` may come out, and
every schema handed out must be valid against the JSON Schema 2020-12 meta-schema.
"""

from __future__ import annotations

import contextlib
import copy
import json
from importlib import resources
from typing import Any

import jsonschema
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from specbridge import SpecbridgeError
from specbridge.call import Checker, build_request
from specbridge.document import from_data
from specbridge.lint import FORMATS, default_registry, lint, render
from specbridge.search import SearchIndex, SearchSettings
from specbridge.tools import ToolSet, convert, export
from tests.support.fidelity_values import Generator

SHOP = yaml.safe_load(resources.files("specbridge.examples").joinpath("shop.openapi.yaml").read_text())
SWAGGER = {
    "swagger": "2.0",
    "info": {"title": "Pets", "version": "1"},
    "host": "pets.example.com",
    "basePath": "/v1",
    "definitions": {
        "Pet": {
            "type": "object",
            "required": ["name"],
            "properties": {
                "name": {"type": "string", "pattern": "^[a-z]+$"},
                "tags": {"type": "array", "items": {"type": "string"}},
                "owner": {"$ref": "#/definitions/Pet"},
            },
        }
    },
    "paths": {
        "/pets/{petId}": {
            "parameters": [{"name": "petId", "in": "path", "required": True, "type": "string"}],
            "get": {"operationId": "getPet", "tags": ["pets"], "responses": {"200": {"description": "ok"}}},
            "put": {
                "operationId": "putPet",
                "consumes": ["application/json"],
                "parameters": [{"name": "pet", "in": "body", "schema": {"$ref": "#/definitions/Pet"}}],
                "responses": {"200": {"description": "ok", "schema": {"$ref": "#/definitions/Pet"}}},
            },
        },
        "/pets": {
            "post": {
                "operationId": "uploadPet",
                "consumes": ["multipart/form-data"],
                "parameters": [
                    {"name": "file", "in": "formData", "type": "file"},
                    {"name": "note", "in": "formData", "type": "string", "enum": ["a", "b"]},
                ],
                "responses": {"201": {"description": "made"}},
            }
        },
    },
}

ODD: list[Any] = [
    None,
    0,
    -1,
    1.5,
    True,
    "",
    "x",
    "{",
    "\u0000",
    "\u2028",
    "../",
    "a" * 3000,
    10**30,
    [],
    {},
    [None],
    [{}],
    "#/components/schemas/Nope",
    {"$ref": "#"},
    {"$ref": "#/paths"},
    {"$ref": "#/nowhere/at/all"},
    {"type": 5},
    {"type": ["string", {"a": 1}, "string"]},
    {"required": [{"a": 1}, "x", "x"], "properties": {}},
    {"allOf": [{"$ref": "#"}]},
    {"enum": []},
    {"items": [None]},
    {"items": None},
    {"oneOf": []},
    {"properties": None},
    {"type": "string", "pattern": "[a-"},
    {"patternProperties": {"(": {"type": "string"}}},
    {"dependentRequired": {"a": ["b", "b", 3]}},
    {"minimum": "x", "maxLength": -1, "multipleOf": 0},
    {"format": "binary"},
    {"in": "path", "name": "id"},
    {"name": None, "in": "query"},
    {"in": "header", "name": "Authorization", "schema": {"type": "string"}},
    {"in": "cookie", "name": "a b"},
    {"style": "deepObject", "in": "query", "name": "q", "schema": {"type": "object"}},
    {"content": {"*/*": None}},
    {"servers": [{"url": "{x}://{y}", "variables": {"x": {"default": None}}}]},
    {"default": {"$ref": "#"}, "const": {"a": [1]}},
]


KEYWORDS = [
    "type", "required", "items", "enum", "pattern", "properties", "allOf", "oneOf", "anyOf", "not",
    "additionalProperties", "format", "minimum", "maxLength", "default", "const", "nullable", "readOnly",
    "discriminator", "$ref", "tags", "parameters", "requestBody", "responses", "content", "schema",
    "in", "name", "style", "explode", "security", "servers", "operationId", "prefixItems",
    "patternProperties", "dependentRequired", "encoding", "consumes", "produces",
]  # fmt: skip


def _nodes(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [path] if path else []
    if isinstance(value, dict):
        for key, inner in value.items():
            found += _nodes(inner, (*path, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            found += _nodes(inner, (*path, index))
    return found


def _pointer(path: tuple[Any, ...]) -> str:
    return "#/" + "/".join(str(part).replace("~", "~0").replace("/", "~1") for part in path)


@st.composite
def broken(draw: st.DrawFn) -> dict[str, Any]:
    data = copy.deepcopy(draw(st.sampled_from([SHOP, SWAGGER])))
    for _ in range(draw(st.integers(1, 5))):
        places = _nodes(data)
        path = draw(st.sampled_from(places))
        parent: Any = data
        for part in path[:-1]:
            parent = parent[part]
        key = path[-1]
        how = draw(st.sampled_from(["odd", "keyword", "keyword", "delete", "ref", "nest"]))
        if how == "keyword" and isinstance(parent, dict):
            # a keyword of the node's own kind (schema, parameter, operation) set to an odd value
            parent[draw(st.sampled_from(KEYWORDS))] = copy.deepcopy(draw(st.sampled_from(ODD)))
        elif how in ("odd", "keyword"):
            parent[key] = copy.deepcopy(draw(st.sampled_from(ODD)))
        elif how == "delete" and isinstance(parent, dict):
            del parent[key]
        elif how == "ref":
            parent[key] = {"$ref": _pointer(draw(st.sampled_from(places)))}
        elif how == "nest":
            parent[key] = copy.deepcopy(parent)
    return data


def _everything(toolset: ToolSet) -> None:
    registry = default_registry()
    report = lint(toolset)
    for fmt in FORMATS:
        render(report, fmt, registry)
    for fmt in ("mcp", "anthropic", "openai"):
        json.dumps(export(toolset, fmt))
    json.dumps(export(toolset, "openai", strict=True))
    json.dumps(export(toolset, "anthropic", defer_loading=True))
    for tool in toolset.tools:
        jsonschema.Draft202012Validator.check_schema(tool.input_schema)
        if tool.output_schema is not None:
            jsonschema.Draft202012Validator.check_schema(tool.output_schema)
        checker = Checker(tool.input_schema)
        arguments = Generator(tool.input_schema, "required").arguments()
        for candidate in ({}, {"x": 1}, arguments):
            try:
                checker.check(candidate)
            except SpecbridgeError:
                continue
            with contextlib.suppress(SpecbridgeError):
                build_request(tool, candidate, base_url="https://api.example.com/v1")
    index = SearchIndex.build(toolset.tools, toolset.document.data, settings=SearchSettings(semantic="off"))
    index.search("make a new pet")
    index.search("")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=broken())
def test_a_broken_document_gets_a_clear_error_or_tools_every_layer_can_use(data: dict[str, Any]) -> None:
    try:
        toolset = convert(from_data(data, source="broken.yaml"))
    except SpecbridgeError:
        return
    _everything(toolset)


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        ({"type": "string", "pattern": "[a-"}, {"type": "string"}),
        ({"type": "string", "pattern": "^a\\Z"}, {"type": "string"}),  # Python's, not ECMA-262's
        ({"type": "string", "pattern": "^[a-z]+$"}, {"type": "string", "pattern": "^[a-z]+$"}),
        ({"type": "array", "items": [None]}, {"type": "array"}),
        ({"type": ["string", {"a": 1}, "string"]}, {"type": "string"}),
        (
            {"type": "object", "patternProperties": {"(": {"type": "string"}, "^x": {"type": "integer"}}},
            {"type": "object", "patternProperties": {"^x": {"type": "integer"}}},
        ),
    ],
)
def test_what_no_validator_compiles_is_dropped_from_a_schema(schema: Any, expected: Any) -> None:
    data = copy.deepcopy(SHOP)
    data["paths"] = {
        "/a": {
            "get": {
                "operationId": "a",
                "parameters": [{"name": "p", "in": "query", "schema": schema}],
                "responses": {"200": {"description": "ok"}},
            }
        }
    }
    tool = convert(from_data(data, source="a.yaml")).tools[0]
    assert tool.input_schema["properties"]["p"] == expected
    jsonschema.Draft202012Validator.check_schema(tool.input_schema)
    Checker(tool.input_schema).check({"p": "x"} if expected.get("type") == "string" else {})


def test_required_names_that_are_not_strings_or_repeat_leave_one_list_of_names() -> None:
    data = copy.deepcopy(SHOP)
    body = {"type": "object", "required": [{"a": 1}, "x", "x"], "properties": {"x": {"type": "string"}}}
    data["paths"] = {
        "/a": {
            "post": {
                "operationId": "a",
                "requestBody": {"required": True, "content": {"application/json": {"schema": body}}},
                "responses": {"200": {"description": "ok"}},
            }
        }
    }
    tool = convert(from_data(data, source="a.yaml")).tools[0]
    jsonschema.Draft202012Validator.check_schema(tool.input_schema)
    assert "x" in json.dumps(tool.input_schema)


def test_tags_that_are_not_a_list_name_no_tag_in_search() -> None:
    data = copy.deepcopy(SWAGGER)
    data["paths"]["/pets/{petId}"]["get"]["tags"] = 7
    data["paths"]["/pets/{petId}"]["put"]["tags"] = "pets"
    toolset = convert(from_data(data, source="pets.json"))
    index = SearchIndex.build(toolset.tools, toolset.document.data, settings=SearchSettings(semantic="off"))
    assert index.search("get a pet").tools[0].name == "getPet"
    assert "p" not in dict(index.tags)  # a string is not read as its letters
