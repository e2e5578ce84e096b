"""OpenAI strict export: only the documented subset; what it cannot say moves into descriptions."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from specbridge.call import Checker
from specbridge.tools import StrictIncompatible, export_openai, strict_schema
from tests.support.openai_strict import strict_problems
from tests.support.openapi import is_valid_2020_12, toolset


def root(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "additionalProperties": False}


def strict_property(schema: dict[str, Any]) -> Any:
    result = strict_schema({**root(p=schema), "required": ["p"]})
    assert strict_problems(result) == []
    assert is_valid_2020_12(result)
    return result["properties"]["p"]


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        (
            {"type": "string", "format": "uri", "description": "Link."},
            {"type": "string", "description": "Link. Format: uri."},
        ),
        (
            {"type": "string", "format": "phone-number"},
            {"type": "string", "description": "Format: phone-number."},
        ),
        ({"type": "string", "format": "date-time"}, {"type": "string", "format": "date-time"}),
        ({"type": "integer", "format": "int64"}, {"type": "integer"}),
        (
            {"type": "string", "contentEncoding": "base64"},
            {"type": "string", "description": "Base64-encoded."},
        ),
        (
            {"type": "string", "minLength": 2, "maxLength": 8},
            {"type": "string", "description": "2 to 8 characters."},
        ),
        ({"type": "string", "maxLength": 8}, {"type": "string", "description": "At most 8 characters."}),
        (
            {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
            {"type": "array", "items": {"type": "string"}, "description": "Items must be unique."},
        ),
        ({"type": "string", "title": "Colour"}, {"type": "string", "description": "Colour"}),
        ({"type": "integer", "minimum": 1, "default": 5, "examples": [3]}, {"type": "integer", "minimum": 1}),
    ],
)
def test_what_strict_mode_cannot_say_moves_into_the_description_or_is_dropped(
    schema: dict[str, Any], expected: Any
) -> None:
    assert strict_property(schema) == expected


def test_all_of_parts_and_refs_merge_into_one_closed_object() -> None:
    schema = {
        **root(
            thing={
                "allOf": [
                    {"$ref": "#/$defs/Base"},
                    {"properties": {"label": {"type": "string"}}, "required": ["label"]},
                ]
            }
        ),
        "required": ["thing"],
        "$defs": {"Base": {"type": "object", "properties": {"id": {"type": "integer"}}}},
    }
    result = strict_schema(schema)
    assert strict_problems(result) == []
    assert result["properties"]["thing"] == {
        "type": "object",
        "properties": {"id": {"type": ["integer", "null"]}, "label": {"type": "string"}},
        "required": ["id", "label"],
        "additionalProperties": False,
    }


def test_an_object_given_by_its_properties_alone_is_an_object() -> None:
    assert strict_property({"properties": {"a": {"type": "string"}}, "required": ["a"]}) == {
        "type": "object",
        "properties": {"a": {"type": "string"}},
        "required": ["a"],
        "additionalProperties": False,
    }


def test_keywords_beside_one_of_are_distributed_into_every_branch() -> None:
    result = strict_property(
        {
            "type": "object",
            "properties": {"name": {"type": "string"}},
            "oneOf": [
                {
                    "required": ["name"],
                    "properties": {"a": {"type": "string"}},
                    "additionalProperties": False,
                },
                {"properties": {"b": {"type": "integer"}}, "required": ["b"]},
            ],
        }
    )
    first, second = result["anyOf"]
    assert first["properties"] == {"name": {"type": "string"}, "a": {"type": ["string", "null"]}}
    assert second["required"] == ["name", "b"]
    assert second["properties"]["b"] == {"type": "integer"}


DISCRIMINATED = """
paths:
  /shapes:
    post:
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [shape]
              properties:
                shape:
                  oneOf: [{$ref: '#/components/schemas/Circle'}, {$ref: '#/components/schemas/Group'}]
                  discriminator: {propertyName: kind, mapping: {circle: Circle, group: Group}}
      responses: {'204': {description: ok}}
components:
  schemas:
    Circle:
      type: object
      required: [radius]
      properties: {kind: {type: string}, radius: {type: number}, label: {type: string}}
    Group:
      type: object
      properties:
        kind: {type: string}
        members:
          type: array
          items:
            oneOf: [{$ref: '#/components/schemas/Circle'}, {$ref: '#/components/schemas/Group'}]
            discriminator: {propertyName: kind, mapping: {circle: Circle, group: Group}}
"""


def test_a_discriminated_one_of_becomes_any_of_with_each_branch_pinned_and_is_accepted_by_the_gateway() -> (
    None
):
    [tool] = toolset(DISCRIMINATED).tools
    [entry] = export_openai(toolset(DISCRIMINATED), strict=True)
    function = entry["function"]
    assert function["strict"] is True
    parameters = function["parameters"]
    assert strict_problems(parameters) == []
    circle, group = parameters["properties"]["shape"]["anyOf"]
    # Group is recursive: its pinned form is a definition of its own, which its members refer to too
    group = parameters["$defs"][group["$ref"].removeprefix("#/$defs/")]
    assert circle["properties"]["kind"] == {"type": "string", "const": "circle"}
    assert circle["properties"]["label"] == {"type": ["string", "null"]}
    assert group["properties"]["kind"] == {"type": "string", "const": "group"}
    # what a model fills in under strict mode, nulls for the optional fields included
    answer = {
        "shape": {
            "kind": "group",
            "members": [{"kind": "circle", "radius": 2, "label": None}, {"kind": "group", "members": None}],
        }
    }
    checker = Checker(tool.input_schema)
    checker.check(checker.drop_nulls(answer))


def test_one_of_branches_told_apart_by_an_optional_pinned_property_require_it_in_strict_mode() -> None:
    result = strict_property(
        {
            "oneOf": [
                {"type": "object", "properties": {"type": {"type": "string", "enum": ["reboot"]}}},
                {
                    "type": "object",
                    "properties": {
                        "type": {"type": "string", "enum": ["install"]},
                        "app": {"type": "string"},
                    },
                },
            ]
        }
    )
    reboot, install = result["anyOf"]
    assert reboot["properties"]["type"] == {"type": "string", "enum": ["reboot"]}
    assert install["properties"]["type"] == {"type": "string", "enum": ["install"]}
    assert install["properties"]["app"] == {"type": ["string", "null"]}


@pytest.mark.parametrize(
    "branches",
    [
        [{"type": "integer"}, {"type": "number"}],
        [
            {"type": "object", "properties": {"a": {"type": "string"}}},
            {"type": "object", "properties": {"b": {"type": "string"}}},
        ],
        [{"type": "string"}, {"type": "string", "enum": ["x"]}],
    ],
)
def test_a_one_of_whose_branches_one_value_can_match_is_not_strict(branches: list[Any]) -> None:
    with pytest.raises(StrictIncompatible, match="can match the same value"):
        strict_schema({**root(p={"oneOf": branches}), "required": ["p"]})


@pytest.mark.parametrize(
    "branches",
    [
        [{"type": "string"}, {"type": "integer"}],
        [{"type": "string", "enum": ["none"]}, {"type": "string", "pattern": "^[1-9][0-9]*$"}],
        [
            {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
            {"type": "object", "properties": {"b": {"type": "string"}}, "required": ["b"]},
        ],
    ],
)
def test_a_one_of_whose_branches_exclude_each_other_becomes_any_of(branches: list[Any]) -> None:
    assert len(strict_property({"oneOf": branches})["anyOf"]) == 2


def nested(levels: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(levels - 1):
        schema = {"type": "object", "properties": {"x": schema}, "required": ["x"]}
    return schema


def test_ten_levels_of_nesting_are_strict_and_eleven_are_not() -> None:
    assert strict_problems(strict_schema({**root(p=nested(10)), "required": ["p"]})) == []
    with pytest.raises(StrictIncompatible, match="nests 11 levels"):
        strict_schema({**root(p=nested(11)), "required": ["p"]})


def test_a_recursive_definition_is_strict_and_its_cycle_is_not_counted_as_nesting() -> None:
    node = {
        "type": "object",
        "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}},
    }
    result = strict_schema(
        {**root(tree={"$ref": "#/$defs/Node"}), "required": ["tree"], "$defs": {"Node": node}}
    )
    assert strict_problems(result) == []
    assert result["$defs"]["Node"]["properties"]["children"]["type"] == ["array", "null"]


@pytest.mark.parametrize(
    ("schema", "reason"),
    [
        (
            root(**{f"p{i}": {"type": "string", "enum": [f"v{j}" for j in range(100)]} for i in range(11)}),
            "1100 enum values",
        ),
        (
            root(p={"type": "string", "enum": [f"{j:060d}" for j in range(251)]}),
            "251 values of 15060 characters",
        ),
        (root(**{f"p{i}": {"type": "boolean"} for i in range(5001)}), "5001 object properties"),
        (root(**{f"p{i}" + "x" * 200: {"type": "boolean"} for i in range(600)}), "characters long"),
    ],
)
def test_the_documented_size_limits_make_a_tool_non_strict(schema: dict[str, Any], reason: str) -> None:
    schema = {**schema, "required": list(schema["properties"])}
    with pytest.raises(StrictIncompatible, match=reason):
        strict_schema(schema)
    assert strict_problems(schema) != []


def test_a_large_enum_of_short_values_stays_strict() -> None:
    result = strict_schema(
        {**root(p={"type": "string", "enum": [f"v{j}" for j in range(900)]}), "required": ["p"]}
    )
    assert strict_problems(result) == []


@pytest.mark.parametrize(
    ("schema", "problem"),
    [
        ({"anyOf": [root()]}, "root must be an object"),
        ({**root(p={"type": "string", "format": "uri"}), "required": ["p"]}, "format 'uri'"),
        ({**root(p={"type": "string", "title": "P"}), "required": ["p"]}, "uses ['title']"),
        (
            {"type": "object", "properties": {"p": {"type": "string"}}, "required": ["p"]},
            "additionalProperties",
        ),
        (root(p={"type": "string"}), "does not require every property"),
        ({**root(p={"oneOf": [{"type": "string"}]}), "required": ["p"]}, "uses ['oneOf']"),
        (
            {
                **root(p={"$ref": "#/$defs/X", "required": []}),
                "required": ["p"],
                "$defs": {"X": {"type": "string"}},
            },
            "beside $ref",
        ),
        ({**root(p=nested(11)), "required": ["p"]}, "11 levels of nesting"),
    ],
)
def test_the_documented_subset_checker_catches_each_rule(schema: dict[str, Any], problem: str) -> None:
    assert any(problem in found for found in strict_problems(schema)), strict_problems(schema)


def test_a_ref_stands_alone_and_its_description_moves_onto_a_one_branch_any_of() -> None:
    result = strict_schema(
        {
            **root(
                a={"$ref": "#/$defs/Tree", "description": "The tree."},
                b={"$ref": "#/$defs/Tree"},
            ),
            "required": ["a"],
            "$defs": {
                "Tree": {
                    "type": "object",
                    "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Tree"}}},
                }
            },
        }
    )
    assert strict_problems(result) == []
    assert result["properties"]["a"] == {"anyOf": [{"$ref": "#/$defs/Tree"}], "description": "The tree."}
    assert result["properties"]["b"] == {"anyOf": [{"$ref": "#/$defs/Tree"}, {"type": "null"}]}


_LEAVES = st.one_of(
    st.fixed_dictionaries(
        {
            "type": st.sampled_from(
                ["string", "integer", "number", "boolean", "null", "file", ["string", "null"]]
            )
        },
        optional={
            "format": st.sampled_from(["uri", "date", "int64", "byte", "uuid"]),
            "minLength": st.integers(0, 5),
            "maxLength": st.integers(0, 5) | st.booleans(),
            "pattern": st.sampled_from(["^a", "(", "[0-9]+"]),
            "enum": st.lists(st.text(max_size=3) | st.none(), max_size=3),
            "title": st.text(max_size=5),
            "contentEncoding": st.just("base64"),
        },
    ),
    st.just({}),
    st.just(True),
    st.just({"$ref": "#/$defs/Node"}),
    st.just({"$ref": "#/$defs/Missing"}),
    st.just({"description": "only words"}),
)


def _composites(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    names = st.sampled_from(["a", "b", "type", "kind"])
    return st.one_of(
        st.fixed_dictionaries(
            {"properties": st.dictionaries(names, children, max_size=3)},
            optional={
                "type": st.sampled_from(["object", ["object", "null"], "string"]),
                "required": st.lists(names, max_size=3) | st.just("a"),
                "additionalProperties": st.booleans() | children,
                "dependentRequired": st.just({"a": ["b"]}),
            },
        ),
        st.fixed_dictionaries(
            {"type": st.just("array")}, optional={"items": children, "uniqueItems": st.booleans()}
        ),
        st.builds(
            lambda key, parts: {key: parts},
            st.sampled_from(["oneOf", "anyOf", "allOf"]),
            st.lists(children, max_size=3),
        ),
        st.fixed_dictionaries(
            {"allOf": st.lists(children, max_size=2)},
            optional={"properties": st.dictionaries(names, children, max_size=2), "not": children},
        ),
        st.fixed_dictionaries(
            {"$ref": st.just("#/$defs/Node"), "properties": st.dictionaries(names, children, max_size=1)}
        ),
    )


SCHEMAS = st.recursive(_LEAVES, _composites, max_leaves=12)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(argument=SCHEMAS, node=SCHEMAS)
def test_any_input_schema_either_becomes_a_strict_one_inside_the_subset_or_says_why_not(
    argument: Any, node: Any
) -> None:
    schema = {**root(p=argument), "required": ["p"], "$defs": {"Node": node}}
    try:
        result = strict_schema(schema)
    except StrictIncompatible as error:
        assert error.reason
        return
    assert strict_problems(result) == []


def test_a_definition_referred_to_in_its_own_siblings_is_refused_not_flattened_for_minutes() -> None:
    """Found by the property test above: each inlining of `Node` brings two more (minutes and gigabytes
    before); the number of inlinings in one conversion is bounded."""
    node = {
        "properties": {
            "type": {
                "$ref": "#/$defs/Node",
                "properties": {"type": {"$ref": "#/$defs/Node", "properties": {}}},
            }
        }
    }
    schema = {**root(p=node), "required": ["p"], "$defs": {"Node": node}}
    with pytest.raises(StrictIncompatible, match="too deeply to flatten"):
        strict_schema(schema)
