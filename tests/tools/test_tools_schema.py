"""Schemas become JSON Schema 2020-12: 3.0 and Swagger keywords translated or dropped."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

from tests.support.openapi import is_valid_2020_12, only_tool

HEADER_30 = "openapi: 3.0.3\ninfo: {title: T, version: '1'}\n"


def shaped(schema: str, *, header: str = HEADER_30) -> Any:
    from tests.support.openapi import toolset

    tool = toolset(
        "paths:\n  /a:\n    get:\n      parameters: [{name: p, in: query, schema: " + schema + "}]\n"
        "      responses: {'200': {description: ok}}\n",
        header=header,
    ).tools[0]
    assert is_valid_2020_12(tool.input_schema)
    jsonschema.Draft202012Validator.check_schema(tool.input_schema)
    return tool.input_schema["properties"]["p"]


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        ("{type: string, nullable: true}", {"type": ["string", "null"]}),
        (
            "{type: string, enum: [a, b], nullable: true}",
            {"type": ["string", "null"], "enum": ["a", "b", None]},
        ),
        (
            "{oneOf: [{type: string}, {type: integer}], nullable: true}",
            {"anyOf": [{"oneOf": [{"type": "string"}, {"type": "integer"}]}, {"type": "null"}]},
        ),
        ("{type: integer, minimum: 1, exclusiveMinimum: true}", {"type": "integer", "exclusiveMinimum": 1}),
        ("{type: integer, maximum: 9, exclusiveMaximum: true}", {"type": "integer", "exclusiveMaximum": 9}),
        ("{type: integer, minimum: 1, exclusiveMinimum: false}", {"type": "integer", "minimum": 1}),
        ("{type: string, example: x, xml: {name: p}, x-internal: 1}", {"type": "string"}),
        ("{type: file}", {"type": "string", "contentMediaType": "application/octet-stream"}),
        (
            "{type: string, format: binary}",
            {"type": "string", "contentMediaType": "application/octet-stream"},
        ),
        ("{type: int32}", {}),
        (
            "{type: array, items: [{type: string}, {type: integer}]}",
            {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]},
        ),
        ("{type: string, minLength: -1, maxLength: 3}", {"type": "string", "maxLength": 3}),
    ],
)
def test_openapi_3_0_and_swagger_keywords_become_2020_12(schema: str, expected: Any) -> None:
    assert shaped(schema) == expected


def test_discriminator_is_dropped() -> None:
    result = shaped(
        "{oneOf: [{type: object, properties: {kind: {type: string}}}], discriminator: {propertyName: kind}}"
    )
    assert "discriminator" not in json.dumps(result)


def test_a_3_1_type_list_and_examples_are_handled() -> None:
    result = shaped(
        "{type: [string, 'null'], examples: [a]}", header="openapi: 3.1.0\ninfo: {title: T, version: '1'}\n"
    )
    assert result == {"type": ["string", "null"]}


def test_a_nullable_ref_becomes_any_of_the_ref_and_null() -> None:
    tool = only_tool(
        """
        paths:
          /a:
            get:
              parameters: [{name: p, in: query, schema: {$ref: '#/components/schemas/Big', nullable: true, description: d}}]
              responses: {'200': {description: ok}}
        components:
          schemas:
            Big: {type: object, properties: {a: {type: string}}}
        """
    )
    assert tool.input_schema["properties"]["p"]["description"] == "d"
    assert {"type": "null"} in tool.input_schema["properties"]["p"]["type"] or "null" in tool.input_schema[
        "properties"
    ]["p"]["type"]


def test_a_small_shared_schema_is_inlined_and_a_large_one_goes_to_defs_once() -> None:
    props = "\n".join(f"                f{i}: {{type: string, description: '{'x' * 60}'}}" for i in range(40))
    tool = only_tool(
        f"""
        paths:
          /a:
            post:
              requestBody:
                content:
                  application/json:
                    schema:
                      type: object
                      properties:
                        small: {{$ref: '#/components/schemas/Small'}}
                        first: {{$ref: '#/components/schemas/Large'}}
                        second: {{$ref: '#/components/schemas/Large'}}
              responses: {{'200': {{description: ok}}}}
        components:
          schemas:
            Small: {{type: string, maxLength: 3}}
            Large:
              type: object
              properties:
{props}
        """
    )
    properties = tool.input_schema["properties"]
    assert properties["small"] == {"type": "string", "maxLength": 3}
    assert properties["first"] == properties["second"] == {"$ref": "#/$defs/Large"}
    assert list(tool.input_schema["$defs"]) == ["Large"]
    assert is_valid_2020_12(tool.input_schema)


def test_the_input_schema_is_a_closed_object() -> None:
    tool = only_tool("paths:\n  /a:\n    get: {responses: {'200': {description: ok}}}\n")
    assert tool.input_schema == {"type": "object", "properties": {}, "additionalProperties": False}


class TestOutputSchema:
    def test_an_object_2xx_json_answer_becomes_the_output_schema_without_required(self) -> None:
        tool = only_tool(
            """
            paths:
              /a:
                get:
                  responses:
                    '200':
                      description: ok
                      content:
                        application/json:
                          schema: {type: object, required: [id], properties: {id: {type: string}, secret: {type: string, writeOnly: true}}}
            """
        )
        # Answers may carry null where their document forgot `nullable`: properties of answers accept it.
        assert tool.output_schema == {"type": "object", "properties": {"id": {"type": ["string", "null"]}}}

    @pytest.mark.parametrize(
        ("content_type", "schema"),
        [("application/json", "{type: array, items: {type: string}}"), ("text/plain", "{type: object}")],
    )
    def test_a_non_object_or_non_json_answer_has_no_output_schema(
        self, content_type: str, schema: str
    ) -> None:
        tool = only_tool(
            f"""
            paths:
              /a:
                get:
                  responses:
                    '200':
                      description: ok
                      content:
                        {content_type}:
                          schema: {schema}
            """
        )
        assert tool.output_schema is None

    def test_a_recursive_answer_is_cut_to_a_few_levels_and_stays_valid(self) -> None:
        tool = only_tool(
            """
            paths:
              /a:
                get:
                  responses:
                    '200':
                      description: ok
                      content:
                        application/json:
                          schema: {$ref: '#/components/schemas/Node'}
            components:
              schemas:
                Node:
                  type: object
                  properties:
                    name: {type: string}
                    next: {$ref: '#/components/schemas/Node'}
            """
        )
        assert tool.output_schema is not None
        assert "$ref" not in json.dumps(tool.output_schema)
        assert tool.output_schema["properties"]["name"] == {"type": ["string", "null"]}
        assert tool.output_schema["properties"]["next"] == {"type": ["object", "null"]}  # cut below level one
        assert is_valid_2020_12(tool.output_schema)


def _schemas_naming_each_other(levels: int, width: int) -> dict[str, Any]:
    """Each level's schemas name every schema of the next level three times, in `oneOf`s."""
    schemas: dict[str, Any] = {}
    for level in range(levels):
        below = [{"$ref": f"#/components/schemas/S{level + 1}_{j}"} for j in range(width)]
        for j in range(width):
            inner = {"oneOf": below} if level < levels - 1 else {"type": "string"}
            schemas[f"S{level}_{j}"] = {"type": "object", "properties": {f"p{k}": inner for k in range(3)}}
    return {
        "openapi": "3.1.0",
        "info": {"title": "T", "version": "1"},
        "paths": {
            "/a": {
                "post": {
                    "operationId": "a",
                    "requestBody": {
                        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/S0_0"}}}
                    },
                    "responses": {"200": {"description": "ok"}},
                }
            }
        },
        "components": {"schemas": schemas},
    }


def test_copies_of_copies_cannot_blow_a_small_document_up_into_a_huge_tool_schema() -> None:
    from specbridge._errors import ArgumentError
    from specbridge._json import dumps_bytes
    from specbridge.call import Checker
    from specbridge.document import from_data
    from specbridge.tools import convert
    from specbridge.tools._schema import MAX_INPUT_SCHEMA_BYTES

    # 80 schemas of under 1 KB each; copying every one under 2 KB made the one tool's schema 419 KB
    tool = convert(from_data(_schemas_naming_each_other(10, 8), source="a.json")).tools[0]
    size = len(dumps_bytes(tool.input_schema))
    assert size < MAX_INPUT_SCHEMA_BYTES // 2
    assert len(tool.input_schema["$defs"]) == 64  # each named schema once, shared by reference
    assert is_valid_2020_12(tool.input_schema)
    checker = Checker(tool.input_schema)
    checker.check({"p0": {"p1": {"p2": {}}}})
    with pytest.raises(ArgumentError):
        checker.check({"p0": 5})


def test_a_document_whose_copies_stay_small_keeps_its_copies_inline() -> None:
    from specbridge.document import from_data
    from specbridge.tools import convert

    tool = convert(from_data(_schemas_naming_each_other(2, 2), source="a.json")).tools[0]
    assert "$defs" not in tool.input_schema  # two small levels: copied, as before
