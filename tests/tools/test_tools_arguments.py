"""Arguments: one flat object, a map back to each location, symmetric prefixes on clashes."""

from __future__ import annotations

from specbridge.tools import Tool, is_forbidden_header
from tests.support.openapi import only_tool

CLASH = """
paths:
  /things/{id}:
    patch:
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
        - {name: id, in: query, schema: {type: string}}
        - {name: limit, in: query, schema: {type: integer}}
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [id]
              properties:
                id: {type: string}
                name: {type: string}
      responses: {'200': {description: ok}}
"""


def locations(body: str) -> dict[str, tuple[str, str]]:
    return {argument.name: (argument.location, argument.original) for argument in only_tool(body).arguments}


def test_parameters_and_object_body_fields_become_one_flat_object() -> None:
    tool = only_tool(CLASH)
    assert set(tool.input_schema["properties"]) == {"path_id", "query_id", "body_id", "limit", "name"}
    assert tool.body is not None
    assert tool.body.whole is False


def test_every_clashing_argument_gets_its_location_in_front() -> None:
    assert locations(CLASH) == {
        "path_id": ("path", "id"),
        "query_id": ("query", "id"),
        "limit": ("query", "limit"),
        "body_id": ("body", "id"),
        "name": ("body", "name"),
    }


def test_required_follows_the_path_the_parameter_and_the_body() -> None:
    assert only_tool(CLASH).input_schema["required"] == ["path_id", "body_id"]


def test_a_prefixed_name_that_clashes_again_gets_a_numbered_suffix_and_the_natural_name_stays() -> None:
    body = """
    paths:
      /a/{id}:
        post:
          parameters:
            - {name: id, in: path, required: true, schema: {type: string}}
            - {name: body_id, in: query, schema: {type: string}}
          requestBody:
            content:
              application/json:
                schema: {type: object, properties: {id: {type: string}}}
          responses: {'200': {description: ok}}
    """
    assert locations(body) == {
        "path_id": ("path", "id"),
        "body_id": ("query", "body_id"),
        "body_id_2": ("body", "id"),
    }


def test_a_path_template_name_without_a_declared_parameter_is_still_an_argument() -> None:
    tool = only_tool("paths:\n  /users/{userId}:\n    get: {responses: {'200': {description: ok}}}\n")
    argument = tool.argument("userId")
    assert argument is not None
    assert (argument.location, argument.required, argument.schema) == ("path", True, {"type": "string"})


def test_argument_names_are_sanitised_and_keep_their_original() -> None:
    tool = only_tool(
        "paths:\n  /a:\n    get:\n      parameters: [{name: 'filter[status]', in: query, schema: {type: string}}]\n"
        "      responses: {'200': {description: ok}}\n"
    )
    assert [(a.name, a.original) for a in tool.arguments] == [("filter_status_", "filter[status]")]


def test_accept_and_content_type_parameters_are_never_arguments_and_authorization_is_ignored() -> None:
    tool = only_tool(
        """
        paths:
          /a:
            get:
              parameters:
                - {name: Accept, in: header, schema: {type: string}}
                - {name: Content-Type, in: header, schema: {type: string}}
                - {name: Authorization, in: header, schema: {type: string}}
                - {name: X-Trace-Tag, in: header, schema: {type: string}}
              responses: {'200': {description: ok}}
        """
    )
    assert [argument.name for argument in tool.arguments] == ["X-Trace-Tag"]
    assert [item.name for item in tool.left_out] == ["Accept", "Content-Type"]
    assert tool.fixed_headers == ()  # any string: nothing fixed


def test_a_gateway_owned_header_with_one_possible_value_is_fixed_on_the_tool() -> None:
    tool = only_tool(
        """
        paths:
          /a:
            post:
              parameters:
                - {name: Accept, in: header, schema: {type: string, enum: ['application/vnd.x+json;version=2']}}
                - {name: Content-Type, in: header, schema: {type: string, default: application/json}}
                - {name: Accept-Encoding, in: header, schema: {const: identity}}
                - {name: Authorization, in: header, schema: {const: Bearer nope}}
                - {name: Host, in: header, schema: {const: evil.example}}
                - {name: X-Api-Key, in: header, schema: {const: k}}
                - {name: User-Agent, in: header, schema: {enum: ["a\\r\\nX-Evil: 1"]}}
              responses: {'200': {description: ok, content: {text/csv: {}, application/json: {}}}}
        """
    )
    assert tool.arguments == ()
    assert tool.fixed_headers == (
        ("Accept", "application/vnd.x+json;version=2"),
        ("Content-Type", "application/json"),
        ("Accept-Encoding", "identity"),
    )
    assert tool.accept == "application/json, text/csv;q=0.9, */*;q=0.8"


def test_forbidden_headers_and_credential_parameters_are_left_out_with_a_reason() -> None:
    tool = only_tool(
        """
        paths:
          /a:
            get:
              parameters:
                - {name: Host, in: header, schema: {type: string}}
                - {name: Cookie, in: header, schema: {type: string}}
                - {name: X-Api-Key, in: header, schema: {type: string}}
                - {name: X-Specbridge-Mode, in: header, schema: {type: string}}
                - {name: api_token, in: query, schema: {type: string}}
                - {name: q, in: query, schema: {type: string}}
              responses: {'200': {description: ok}}
        components:
          securitySchemes:
            token: {type: apiKey, in: query, name: api_token}
        """
    )
    assert [argument.name for argument in tool.arguments] == ["q"]
    assert [(item.name, item.location) for item in tool.left_out] == [
        ("Host", "header"),
        ("Cookie", "header"),
        ("X-Api-Key", "header"),
        ("X-Specbridge-Mode", "header"),
        ("api_token", "query"),
    ]
    assert all(item.reason for item in tool.left_out)


def test_forbidden_header_names_are_matched_without_case() -> None:
    assert is_forbidden_header(" HOST ")
    assert is_forbidden_header("mcp-session-id")
    assert is_forbidden_header("X-My-Key", frozenset({"x-my-key"}))
    assert not is_forbidden_header("X-Request-Tag")


def _body_tool(schema: str, content_type: str = "application/json") -> Tool:
    return only_tool(
        f"""
        paths:
          /a:
            post:
              requestBody:
                required: true
                content:
                  {content_type}:
                    schema: {schema}
              responses: {{'200': {{description: ok}}}}
        """
    )


def test_non_object_bodies_are_one_body_argument() -> None:
    for schema in (
        "{type: array, items: {type: string}}",
        "{type: string}",
        "{oneOf: [{type: object, properties: {a: {type: string}}}, {type: object, properties: {b: {type: string}}}]}",
        "{type: object}",
    ):
        tool = _body_tool(schema)
        assert [(a.name, a.location, a.required) for a in tool.arguments] == [("body", "body", True)], schema
        assert tool.body is not None
        assert tool.body.whole is True


def test_a_binary_body_is_one_base64_string_body_argument_with_its_media_type() -> None:
    tool = _body_tool("{type: string, format: binary}", "application/octet-stream")
    assert tool.input_schema["properties"]["body"] == {
        "type": "string",
        "contentMediaType": "application/octet-stream",
        "contentEncoding": "base64",
    }


def test_a_text_body_described_by_an_object_schema_stays_text() -> None:
    tool = _body_tool("{type: object, properties: {sub: {type: string}}}", "application/jwt")
    assert tool.input_schema["properties"]["body"] == {
        "type": "string",
        "contentMediaType": "application/jwt",
    }


def test_a_body_property_that_is_required_but_never_described_is_an_argument_taking_any_value() -> None:
    tool = _body_tool("{type: object, required: [currency], properties: {amount: {type: integer}}}")
    assert tool.input_schema["properties"]["currency"] == {}
    assert "currency" in tool.input_schema["required"]


def test_an_all_of_object_body_contributes_every_part_s_fields() -> None:
    tool = only_tool(
        """
        paths:
          /a:
            post:
              requestBody:
                content:
                  application/json:
                    schema:
                      allOf:
                        - {$ref: '#/components/schemas/Base'}
                        - {type: object, required: [extra], properties: {extra: {type: integer}}}
              responses: {'200': {description: ok}}
        components:
          schemas:
            Base: {type: object, required: [name], properties: {name: {type: string}}}
        """
    )
    assert {a.name: a.required for a in tool.arguments} == {"name": True, "extra": True}


def test_read_only_properties_are_not_inputs_at_any_depth() -> None:
    tool = only_tool(
        """
        paths:
          /a:
            post:
              requestBody:
                content:
                  application/json:
                    schema: {$ref: '#/components/schemas/Order'}
              responses: {'200': {description: ok}}
        components:
          schemas:
            Order:
              type: object
              required: [id, item]
              properties:
                id: {type: string, readOnly: true}
                item:
                  type: object
                  required: [sku, created]
                  properties:
                    sku: {type: string}
                    created: {type: string, readOnly: true}
        """
    )
    assert [argument.name for argument in tool.arguments] == ["item"]
    assert tool.input_schema["properties"]["item"] == {
        "type": "object",
        "properties": {"sku": {"type": "string"}},
        "required": ["sku"],
    }
    assert tool.input_schema["required"] == ["item"]


def test_json_is_chosen_over_other_body_media_types() -> None:
    tool = only_tool(
        """
        paths:
          /a:
            post:
              requestBody:
                content:
                  application/xml: {schema: {type: object, properties: {a: {type: string}}}}
                  application/json: {schema: {type: object, properties: {a: {type: string}}}}
              responses: {'200': {description: ok}}
        """
    )
    assert tool.body is not None
    assert tool.body.content_type == "application/json"


def test_a_parameter_description_is_carried_into_its_schema() -> None:
    tool = only_tool(
        "paths:\n  /a:\n    get:\n      parameters: [{name: q, in: query, description: 'What to find.', "
        "schema: {type: string}}]\n      responses: {'200': {description: ok}}\n"
    )
    assert tool.input_schema["properties"]["q"] == {"type": "string", "description": "What to find."}


def test_a_fixed_header_value_with_cr_lf_or_nul_is_never_recorded() -> None:
    tool = only_tool(
        """
        paths:
          /a:
            get:
              parameters:
                - {name: Accept, in: header, schema: {const: "a/b\\r\\nX-Evil: 1"}}
                - {name: Content-Type, in: header, schema: {const: "a/b\\u0000"}}
              responses: {'200': {description: ok}}
        """
    )
    assert tool.fixed_headers == ()
