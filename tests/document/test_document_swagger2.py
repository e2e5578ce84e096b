"""Swagger 2.0 is normalised into the same model as OpenAPI 3."""

from __future__ import annotations

import textwrap

from specbridge.document import ApiDocument, parse_document
from specbridge.tools import convert
from tests.support.openapi import is_valid_2020_12

SWAGGER = """
swagger: '2.0'
info: {title: Pets, version: '1'}
host: api.example.com
basePath: /v1
schemes: [http, https]
consumes: [application/json]
produces: [application/json]
securityDefinitions:
  key: {type: apiKey, in: header, name: X-Key}
  basic: {type: basic}
security: [{key: []}]
paths:
  /pets/{id}:
    parameters:
      - {name: id, in: path, required: true, type: string}
    put:
      operationId: updatePet
      parameters:
        - {name: body, in: body, required: true, schema: {$ref: '#/definitions/Pet'}}
        - {name: X-Key, in: header, type: string}
        - {name: tags, in: query, type: array, items: {type: string}, collectionFormat: pipes}
        - {name: ids, in: query, type: array, items: {type: integer}, collectionFormat: multi}
      responses:
        200: {description: the pet, schema: {$ref: '#/definitions/Pet'}}
        404: {description: no such pet}
  /pets/{id}/photo:
    post:
      operationId: uploadPhoto
      consumes: [multipart/form-data]
      produces: [text/plain]
      parameters:
        - {name: id, in: path, required: true, type: string}
        - {name: file, in: formData, type: file, required: true, description: the photo}
        - {name: caption, in: formData, type: string}
      responses:
        200: {description: ok, schema: {type: string}}
  /pets/{id}/vote:
    post:
      operationId: vote
      consumes: [application/x-www-form-urlencoded]
      parameters:
        - {name: id, in: path, required: true, type: string}
        - {name: stars, in: formData, type: integer, minimum: 1, maximum: 5, exclusiveMaximum: true}
      responses:
        204: {description: counted}
definitions:
  Pet:
    type: object
    required: [name]
    properties:
      id: {type: string, readOnly: true}
      name: {type: string, x-nullable: true}
"""


def read() -> ApiDocument:
    return parse_document(textwrap.dedent(SWAGGER))


def test_host_base_path_and_schemes_become_servers_https_first() -> None:
    assert read().servers == ("https://api.example.com/v1", "http://api.example.com/v1")


def test_a_base_path_without_host_is_a_relative_server() -> None:
    document = parse_document("swagger: '2.0'\ninfo: {title: T, version: '1'}\nbasePath: /api\npaths: {}\n")
    assert document.servers == ("/api",)


def test_security_definitions_become_security_schemes() -> None:
    schemes = {scheme.name: scheme for scheme in read().security_schemes}
    assert (schemes["key"].type, schemes["key"].location, schemes["key"].parameter_name) == (
        "apiKey",
        "header",
        "X-Key",
    )
    assert (schemes["basic"].type, schemes["basic"].scheme) == ("http", "basic")
    assert read().default_security == (("key",),)


def test_an_in_body_parameter_becomes_a_request_body_with_the_consumed_types() -> None:
    operation = read().operations[0]
    assert operation.request_body is not None
    assert operation.request_body.required is True
    assert [media.content_type for media in operation.request_body.content] == ["application/json"]
    assert [parameter.name for parameter in operation.parameters] == ["id", "X-Key", "tags", "ids"]


def test_collection_formats_become_styles() -> None:
    parameters = {parameter.name: parameter for parameter in read().operations[0].parameters}
    assert (parameters["tags"].style, parameters["tags"].explode) == ("pipeDelimited", False)
    assert (parameters["ids"].style, parameters["ids"].explode) == ("form", True)
    assert parameters["id"].style == "simple"
    assert parameters["tags"].schema.value == {"type": "array", "items": {"type": "string"}}


def test_produces_becomes_response_content() -> None:
    operations = {operation.operation_id: operation for operation in read().operations}
    assert [m.content_type for m in operations["updatePet"].responses[0].content] == ["application/json"]
    assert [m.content_type for m in operations["uploadPhoto"].responses[0].content] == ["text/plain"]


def test_form_data_with_a_file_becomes_a_multipart_body() -> None:
    tools = {tool.name: tool for tool in convert(read()).tools}
    upload = tools["uploadPhoto"]
    assert upload.body is not None
    assert upload.body.content_type == "multipart/form-data"
    assert upload.body.whole is False
    assert upload.input_schema["properties"]["file"] == {
        "type": "string",
        "contentMediaType": "application/octet-stream",
        "description": "the photo",
    }
    assert upload.input_schema["required"] == ["id", "file"]


def test_form_data_without_a_file_becomes_a_urlencoded_body() -> None:
    vote = {tool.name: tool for tool in convert(read()).tools}["vote"]
    assert vote.body is not None
    assert vote.body.content_type == "application/x-www-form-urlencoded"
    assert vote.input_schema["properties"]["stars"] == {
        "type": "integer",
        "minimum": 1,
        "exclusiveMaximum": 5,
    }


def test_definitions_and_x_nullable_shape_into_json_schema() -> None:
    update = {tool.name: tool for tool in convert(read()).tools}["updatePet"]
    assert update.input_schema["properties"]["name"] == {"type": ["string", "null"]}
    assert "X-Key" not in update.input_schema["properties"]
    assert [item.name for item in update.left_out] == ["X-Key"]
    assert update.output_schema is not None
    assert all(is_valid_2020_12(tool.input_schema) for tool in convert(read()).tools)
