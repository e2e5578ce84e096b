"""Schemas are shaped per direction: readOnly never an input, writeOnly never in an answer, at any depth."""

from __future__ import annotations

import json
import textwrap
from typing import Any

import jsonschema
import pytest

from specbridge.tools import Tool
from tests.support.openapi import is_valid_2020_12, toolset

# One `Account` schema serves the request body and the answer; it reaches `Owner` through a `$ref`,
# `Owner` refers back to `Account` (a cycle, so both go to `$defs`), and `Stamp` marks its whole
# property read-only from inside an `allOf`.
SHARED = """
paths:
  /accounts:
    post:
      operationId: createAccount
      requestBody:
        required: true
        content: {application/json: {schema: {$ref: '#/components/schemas/Account'}}}
      responses:
        '201':
          description: created
          content: {application/json: {schema: {$ref: '#/components/schemas/Account'}}}
components:
  schemas:
    Account:
      type: object
      required: [id, name, password, owner]
      properties:
        id: {type: string, readOnly: true}
        name: {type: string}
        password: {type: string, writeOnly: true}
        created: {$ref: '#/components/schemas/Stamp'}
        owner: {$ref: '#/components/schemas/Owner'}
    Owner:
      type: object
      required: [etag, email]
      properties:
        etag: {type: string, readOnly: true}
        email: {type: string}
        pin: {type: string, writeOnly: true}
        accounts: {type: array, items: {$ref: '#/components/schemas/Account'}}
    Stamp:
      allOf: [{$ref: '#/components/schemas/Instant'}]
    Instant: {type: string, format: date-time, readOnly: true}
"""


def tool_of(text: str) -> Tool:
    tools = toolset(text).tools
    assert len(tools) == 1
    assert is_valid_2020_12(tools[0].input_schema)
    jsonschema.Draft202012Validator.check_schema(tools[0].input_schema)
    return tools[0]


def names_in(schema: Any) -> set[str]:
    """Every property name anywhere in a schema (its `$defs` included)."""
    found: set[str] = set()
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if isinstance(node.get("properties"), dict):
                found.update(node["properties"])
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return found


def required_in(schema: Any) -> set[str]:
    found: set[str] = set()
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if isinstance(node.get("required"), list):
                found.update(node["required"])
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return found


def test_read_only_properties_leave_the_input_and_its_required_at_every_depth_of_a_cycle() -> None:
    tool = tool_of(SHARED)
    schema = tool.input_schema
    assert [argument.name for argument in tool.arguments] == ["name", "password", "owner"]
    assert schema["required"] == ["name", "password", "owner"]
    assert {"id", "etag", "created"}.isdisjoint(names_in(schema))
    assert {"id", "etag", "created"}.isdisjoint(required_in(schema))
    owner = schema["$defs"]["Owner"]
    assert owner["required"] == ["email"]
    assert set(owner["properties"]) == {"email", "pin", "accounts"}
    account = schema["$defs"]["Account"]
    assert account["required"] == ["name", "password", "owner"]


def test_the_same_shared_schema_is_shaped_without_write_only_properties_in_the_answer() -> None:
    tool = tool_of(SHARED)
    output = tool.output_schema
    assert output is not None
    assert set(output["properties"]) == {"id", "name", "created", "owner"}
    assert "password" not in json.dumps(output)
    # the input side of the very same schemas still offers the write-only fields
    assert "password" in tool.input_schema["properties"]
    assert "pin" in tool.input_schema["$defs"]["Owner"]["properties"]


def test_a_required_beside_an_all_of_never_asks_for_a_read_only_property_of_a_part() -> None:
    tool = tool_of(
        """
        paths:
          /things:
            put:
              requestBody:
                content:
                  application/json:
                    schema:
                      type: object
                      properties:
                        thing:
                          allOf: [{$ref: '#/components/schemas/Base'}]
                          required: [id, label]
              responses: {'204': {description: ok}}
        components:
          schemas:
            Base:
              type: object
              properties:
                id: {type: string, readOnly: true}
                label: {type: string}
        """
    )
    thing = tool.input_schema["properties"]["thing"]
    assert thing["required"] == ["label"]
    assert "id" not in names_in(thing)


def test_a_read_only_parameter_of_a_nested_array_item_is_gone_but_its_siblings_stay() -> None:
    tool = tool_of(
        """
        paths:
          /orders:
            post:
              requestBody:
                content:
                  application/json:
                    schema:
                      type: object
                      properties:
                        lines:
                          type: array
                          items:
                            type: object
                            required: [sku, total]
                            properties:
                              sku: {type: string}
                              total: {type: number, readOnly: true}
              responses: {'204': {description: ok}}
        """
    )
    assert tool.input_schema["properties"]["lines"]["items"] == {
        "type": "object",
        "properties": {"sku": {"type": "string"}},
        "required": ["sku"],
    }


PETS = """
paths:
  /pets:
    post:
      requestBody:
        required: true
        content:
          application/json:
            schema:
              oneOf:
                - $ref: '#/components/schemas/Cat'
                - $ref: '#/components/schemas/Dog'
                - $ref: '#/components/schemas/Lizard'
              discriminator:
                propertyName: kind
                mapping: {cat: '#/components/schemas/Cat', kitty: '#/components/schemas/Cat', dog: Dog}
      responses: {'204': {description: ok}}
components:
  schemas:
    Cat:
      type: object
      required: [name, lives]
      properties: {kind: {type: string}, name: {type: string}, lives: {type: integer}}
    Dog:
      type: object
      required: [name, kind]
      properties: {kind: {type: string, enum: [dog]}, name: {type: string}, good: {type: boolean}}
    Lizard:
      type: object
      required: [species]
      properties: {kind: {type: string}, species: {type: string}}
"""


def test_each_discriminated_branch_keeps_its_required_and_pins_and_requires_its_value() -> None:
    tool = tool_of(PETS)
    branches = tool.input_schema["properties"]["body"]["oneOf"]
    cat, dog, lizard = branches
    assert cat["properties"]["kind"] == {"type": "string", "enum": ["cat", "kitty"]}
    assert cat["required"] == ["name", "lives", "kind"]
    assert dog["properties"]["kind"] == {"type": "string", "enum": ["dog"]}
    assert dog["required"] == ["name", "kind"]
    assert lizard["properties"]["kind"] == {"type": "string", "const": "Lizard"}
    assert lizard["required"] == ["species", "kind"]


@pytest.mark.parametrize(
    ("value", "valid"),
    [
        ({"kind": "cat", "name": "Tom", "lives": 9}, True),
        ({"kind": "kitty", "name": "Tom", "lives": 9}, True),
        ({"kind": "dog", "name": "Rex"}, True),
        ({"kind": "Lizard", "species": "gecko"}, True),
        ({"name": "Tom", "lives": 9}, False),  # no discriminator value
        ({"kind": "dog", "lives": 9}, False),  # a cat's fields under the dog's value
        ({"kind": "cat", "name": "Tom"}, False),  # half a cat
    ],
)
def test_a_value_is_accepted_only_when_it_fills_one_branch_with_its_own_value(
    value: dict[str, Any], valid: bool
) -> None:
    body = tool_of(PETS).input_schema["properties"]["body"]
    assert jsonschema.Draft202012Validator(body).is_valid(value) is valid


def test_a_branch_that_pins_a_value_other_than_its_schema_name_keeps_its_own_values() -> None:
    tool = tool_of(
        """
        paths:
          /filters:
            post:
              requestBody:
                content:
                  application/json:
                    schema:
                      type: object
                      properties:
                        filter:
                          anyOf: [{$ref: '#/components/schemas/Comparison'}, {$ref: '#/components/schemas/TextPart'}]
                          discriminator: {propertyName: type}
              responses: {'204': {description: ok}}
        components:
          schemas:
            Comparison:
              type: object
              required: [type, key]
              properties: {type: {type: string, enum: [eq, ne]}, key: {type: string}}
            TextPart:
              type: object
              properties: {type: {type: string, enum: [text]}, text: {type: string}}
        """
    )
    comparison, text = tool.input_schema["properties"]["filter"]["anyOf"]
    assert comparison["properties"]["type"] == {"type": "string", "enum": ["eq", "ne"]}
    assert comparison["required"] == ["type", "key"]
    assert text["properties"]["type"] == {"type": "string", "enum": ["text"]}
    assert text["required"] == ["type"]


def test_a_branch_in_defs_gets_its_discriminator_beside_the_reference() -> None:
    tool = tool_of(
        """
        paths:
          /nodes:
            post:
              requestBody:
                content:
                  application/json:
                    schema:
                      type: object
                      properties:
                        node: {$ref: '#/components/schemas/Node'}
              responses: {'204': {description: ok}}
        components:
          schemas:
            Node:
              oneOf: [{$ref: '#/components/schemas/Leaf'}, {$ref: '#/components/schemas/Branch'}]
              discriminator: {propertyName: kind, mapping: {leaf: Leaf, branch: Branch}}
            Leaf:
              type: object
              properties: {kind: {type: string}, value: {type: string}}
            Branch:
              type: object
              required: [children]
              properties: {kind: {type: string}, children: {type: array, items: {$ref: '#/components/schemas/Node'}}}
        """
    )
    node = tool.input_schema["$defs"]["Node"]
    leaf, branch = node["oneOf"]
    assert branch == {
        "$ref": "#/$defs/Branch",
        "type": "object",
        "properties": {"kind": {"type": "string", "const": "branch"}},
        "required": ["kind"],
    }
    assert leaf["properties"]["kind"] == {"type": "string", "const": "leaf"}
    validator = jsonschema.Draft202012Validator(tool.input_schema)
    assert validator.is_valid({"node": {"kind": "branch", "children": [{"kind": "leaf", "value": "x"}]}})
    assert not validator.is_valid({"node": {"kind": "branch", "children": [{"kind": "branch"}]}})


def test_a_byte_string_says_base64_as_its_content_encoding() -> None:
    tool = tool_of(
        """
        paths:
          /files:
            put:
              parameters: [{name: checksum, in: header, schema: {type: string, format: byte}}]
              requestBody:
                content:
                  application/json:
                    schema:
                      type: object
                      properties: {content: {type: string, format: byte, description: The file.}}
              responses: {'204': {description: ok}}
        """
    )
    assert tool.input_schema["properties"]["content"] == {
        "type": "string",
        "contentEncoding": "base64",
        "description": "The file.",
    }
    assert tool.input_schema["properties"]["checksum"] == {"type": "string", "contentEncoding": "base64"}


def test_the_gateway_holds_a_branch_in_defs_to_the_discriminator_value_beside_its_reference() -> None:
    from specbridge._errors import ArgumentError
    from specbridge.call import Checker

    tool = tool_of(
        """
        paths:
          /nodes:
            post:
              requestBody:
                content:
                  application/json:
                    schema:
                      type: object
                      properties:
                        node: {$ref: '#/components/schemas/Node'}
              responses: {'204': {description: ok}}
        components:
          schemas:
            Node:
              oneOf: [{$ref: '#/components/schemas/Leaf'}, {$ref: '#/components/schemas/Branch'}]
              discriminator: {propertyName: kind, mapping: {leaf: Leaf, branch: Branch}}
            Leaf:
              type: object
              required: [value]
              properties: {kind: {type: string}, value: {type: string}}
            Branch:
              type: object
              required: [children]
              properties: {kind: {type: string}, children: {type: array, items: {$ref: '#/components/schemas/Node'}}}
        """
    )
    checker = Checker(tool.input_schema)
    checker.check({"node": {"kind": "branch", "children": [{"kind": "leaf", "value": "x"}]}})
    with pytest.raises(ArgumentError):
        checker.check({"node": {"kind": "twig", "children": []}})


IDENTIFIED = """\
components:
  schemas:
    Gid: {type: string, readOnly: true}
    Identified:
      type: object
      properties:
        gid: {type: string, readOnly: true}
        resource_type: {type: string, readOnly: true}
"""


def test_a_body_field_read_only_in_one_all_of_part_and_only_required_in_another_is_no_argument() -> None:
    tool = tool_of(
        textwrap.dedent(
            """
        paths:
          /notes:
            post:
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      allOf:
                        - $ref: '#/components/schemas/Identified'
                        - type: object
                          required: [gid, text]
                          properties: {text: {type: string}}
              responses: {'204': {description: ok}}
        """
        )
        + IDENTIFIED
    )
    assert [argument.name for argument in tool.arguments] == ["text"]
    assert tool.input_schema["required"] == ["text"]


def test_a_body_field_read_only_in_one_all_of_part_and_declared_writable_in_another_is_an_argument() -> None:
    tool = tool_of(
        textwrap.dedent(
            """
        paths:
          /notes:
            post:
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      allOf:
                        - type: object
                          required: [gid, text]
                          properties: {gid: {type: string, enum: [note]}, text: {type: string}}
                        - $ref: '#/components/schemas/Identified'
              responses: {'204': {description: ok}}
        """
        )
        + IDENTIFIED
    )
    assert [argument.name for argument in tool.arguments] == ["gid", "text"]
    assert tool.input_schema["required"] == ["gid", "text"]
    # the writable declaration is the argument's schema, wherever it sits among the parts
    assert tool.input_schema["properties"]["gid"] == {"type": "string", "enum": ["note"]}


def test_a_nested_object_drops_a_property_read_only_in_every_declaration_and_keeps_a_redeclared_one() -> None:
    tool = tool_of(
        textwrap.dedent(
            """
        paths:
          /things:
            post:
              requestBody:
                content:
                  application/json:
                    schema:
                      type: object
                      properties:
                        note:
                          allOf:
                            - $ref: '#/components/schemas/Identified'
                            - type: object
                              required: [gid, text]
                              properties: {gid: {type: string}, text: {type: string}}
                            - type: object
                              required: [id]
                              properties: {id: {$ref: '#/components/schemas/Gid'}}
              responses: {'204': {description: ok}}
        """
        )
        + IDENTIFIED
    )
    note = tool.input_schema["properties"]["note"]
    assert not names_in(note) & {"id", "resource_type"}
    assert "id" not in set(json.dumps(note).split('"'))  # nor in any `required`
    assert "gid" in names_in(note) and "gid" in required_in(note)
    validator = jsonschema.Draft202012Validator(note)
    assert validator.is_valid({"gid": "1", "text": "hi"})
    assert not validator.is_valid({"text": "hi"})


# PagerDuty's pattern: the base `Reference` (each schema's `allOf/0`) marks `type` read-only, and each
# subtype declares `type` again as an enum and requires it. The API refuses a body without it.
PAGERDUTY = """
paths:
  /tags:
    post:
      operationId: createTag
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [tag]
              properties: {tag: {$ref: '#/components/schemas/Tag'}}
      responses: {'201': {description: created}}
  /addons:
    post:
      operationId: createAddon
      requestBody:
        required: true
        content: {application/json: {schema: {$ref: '#/components/schemas/Addon'}}}
      responses:
        '201':
          description: created
          content: {application/json: {schema: {$ref: '#/components/schemas/Addon'}}}
components:
  schemas:
    Reference:
      type: object
      properties:
        id: {type: string, readOnly: true}
        type: {type: string, readOnly: true, description: A string that determines the schema of the object.}
        self: {type: string, format: uri, readOnly: true}
    Tag:
      allOf:
        - $ref: '#/components/schemas/Reference'
        - type: object
          required: [label, type]
          properties:
            type: {type: string, enum: [tag]}
            label: {type: string}
    Addon:
      allOf:
        - $ref: '#/components/schemas/Reference'
        - type: object
          required: [type, name, src]
          properties:
            type: {type: string, enum: [full_page_addon, incident_show_addon]}
            name: {type: string}
            src: {type: string, format: uri}
"""


def test_a_subtype_that_redeclares_a_read_only_base_type_as_a_required_enum_asks_for_it() -> None:
    tools = {tool.name: tool for tool in toolset(PAGERDUTY).tools}
    tag = tools["createTag"].input_schema["properties"]["tag"]
    assert "type" in names_in(tag) and "type" in required_in(tag)
    assert {"id", "self"}.isdisjoint(names_in(tag)) and "id" not in required_in(tag)
    validator = jsonschema.Draft202012Validator(tag)
    assert validator.is_valid({"type": "tag", "label": "urgent"})
    assert not validator.is_valid({"label": "urgent"})
    assert not validator.is_valid({"type": "addon", "label": "urgent"})
    addon = tools["createAddon"]
    assert [argument.name for argument in addon.arguments] == ["type", "name", "src"]
    assert addon.input_schema["required"] == ["type", "name", "src"]
    assert addon.input_schema["properties"]["type"]["enum"] == ["full_page_addon", "incident_show_addon"]


def test_a_write_only_property_redeclared_readable_in_another_all_of_part_stays_in_the_answer() -> None:
    tool = tool_of(
        """
        paths:
          /keys:
            post:
              responses:
                '201':
                  description: created
                  content:
                    application/json:
                      schema:
                        type: object
                        allOf:
                          - type: object
                            properties: {secret: {type: string, writeOnly: true}, pin: {type: string, writeOnly: true}}
                          - type: object
                            properties: {secret: {type: string, description: shown once}}
        """
    )
    assert tool.output_schema is not None
    assert "secret" in names_in(tool.output_schema)
    assert "pin" not in names_in(tool.output_schema)


PAYMENT_METHODS = """\
paths:
  /payments:
    post:
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [method]
              properties:
                method:
                  oneOf:
                    - $ref: '#/components/schemas/Card'
                    - $ref: '#/components/schemas/Wallet'
                    - {type: object, properties: {type: {const: iban}, iban: {type: string}}}
      responses: {'204': {description: ok}}
components:
  schemas:
    Card:
      type: object
      properties:
        type: {type: string, enum: [card, scheme], default: card}
        number: {type: string}
    Wallet:
      allOf:
        - type: object
          properties: {type: {type: string, enum: [wallet]}}
        - type: object
          properties: {number: {type: string}}
"""


def test_a_one_of_whose_branches_each_own_values_of_one_property_requires_it_in_every_branch() -> None:
    tool = tool_of(PAYMENT_METHODS)
    method = tool.input_schema["properties"]["method"]
    assert all("type" in branch["required"] for branch in method["oneOf"])
    validator = jsonschema.Draft202012Validator(method)
    assert not validator.is_valid({})  # several branches took it: the API refuses it
    assert not validator.is_valid({"number": "4111"})
    assert validator.is_valid({"type": "wallet", "number": "w-1"})


def test_a_one_of_whose_branches_share_a_value_is_left_as_the_document_wrote_it() -> None:
    tool = tool_of(PAYMENT_METHODS.replace("enum: [wallet]", "enum: [wallet, card]"))
    method = tool.input_schema["properties"]["method"]
    assert not any("required" in branch for branch in method["oneOf"])
