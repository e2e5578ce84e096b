"""`tools/_form.py`: what a form cannot carry. A required object or array that may be empty travels as
nothing in a form body or a query, so the input schema asks for at least one member."""

from __future__ import annotations

import jsonschema

from specbridge.tools._form import nonempty
from tests.support.openapi import only_tool

SESSIONS = """
paths:
  /account_sessions:
    post:
      parameters:
        - name: filter
          in: query
          required: true
          style: deepObject
          schema: {type: object, properties: {status: {type: string}}}
      requestBody:
        required: true
        content:
          application/x-www-form-urlencoded:
            schema:
              type: object
              required: [account, components]
              properties:
                account: {type: string}
                components:
                  type: object
                  properties:
                    onboarding:
                      type: object
                      required: [enabled, features]
                      properties:
                        enabled: {type: boolean}
                        features: {type: object, properties: {payouts: {type: boolean}}}
                tags: {type: array, items: {type: string}}
            encoding: {components: {style: deepObject, explode: true}}
      responses: {'200': {description: ok}}
"""


def test_a_required_object_a_form_body_or_query_would_drop_when_empty_asks_for_one_field() -> None:
    tool = only_tool(SESSIONS)
    schema = tool.input_schema
    components = schema["properties"]["components"]
    assert components["minProperties"] == 1
    assert components["properties"]["onboarding"]["properties"]["features"]["minProperties"] == 1
    assert "minProperties" not in components["properties"]["onboarding"]  # it requires fields already
    assert schema["properties"]["filter"]["minProperties"] == 1
    assert "minItems" not in schema["properties"]["tags"]  # optional: an empty list is simply not sent
    validator = jsonschema.Draft202012Validator(schema)
    assert not validator.is_valid({"account": "a", "components": {}, "filter": {"status": "x"}})
    assert validator.is_valid(
        {
            "account": "a",
            "components": {"onboarding": {"enabled": True, "features": {"payouts": True}}},
            "filter": {"status": "x"},
        }
    )


def test_a_json_body_keeps_its_empty_objects_they_travel_as_braces() -> None:
    tool = only_tool(SESSIONS.replace("application/x-www-form-urlencoded", "application/json"))
    assert "minProperties" not in tool.input_schema["properties"]["components"]


def test_nonempty_never_changes_the_schema_it_is_given() -> None:
    shared = {"type": "object", "required": ["a"], "properties": {"a": {"type": "array", "items": {}}}}
    copy = {"type": "object", "required": ["a"], "properties": {"a": {"type": "array", "items": {}}}}
    result = nonempty(shared, required=True)
    assert shared == copy and result["properties"]["a"]["minItems"] == 1
    assert nonempty({"$ref": "#/$defs/X"}, required=True) == {"$ref": "#/$defs/X"}
