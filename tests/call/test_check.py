"""The argument check on its own: the promised keyword subset, the depth cut-off, the messages."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from specbridge._errors import ArgumentError, ErrorCode
from specbridge.call._check import Checker, shape
from tests.call._caller import MakeCaller
from tests.call._caller import call as _call
from tests.support.upstream import Upstream


def _problems(schema: dict[str, Any], value: dict[str, Any]) -> list[str]:
    try:
        Checker(schema).check(value)
    except ArgumentError as error:
        return error.problems
    return []


def _nested(levels: int, leaf: Any) -> dict[str, Any]:
    schema: dict[str, Any] = leaf
    for _ in range(levels):
        schema = {"type": "object", "properties": {"a": schema}}
    return schema


def _value(levels: int, leaf: Any) -> Any:
    for _ in range(levels):
        leaf = {"a": leaf}
    return leaf


def test_values_nested_deeper_than_eight_levels_are_not_checked() -> None:
    deep = {"type": "object", "properties": {"x": _nested(9, {"type": "integer"})}}
    assert _problems(deep, {"x": _value(9, "not an integer")}) == []
    shallow = {"type": "object", "properties": {"x": _nested(6, {"type": "integer"})}}
    assert _problems(shallow, {"x": _value(6, "no")}) == ["x.a.a.a.a.a.a: must be an integer"]


def test_unions_of_unions_too_big_to_inline_whole_still_check_the_shallow_levels() -> None:
    # Every level a union of 8 objects of 3 properties naming the next level: 24^8 nodes inlined whole.
    defs = {
        f"L{level}_{j}": {
            "type": "object",
            "properties": {
                name: {"anyOf": [{"$ref": f"#/$defs/L{level + 1}_{k}"} for k in range(8)]}
                if level < 9
                else {"type": "string"}
                for name in ("a", "b", "c")
            },
        }
        for level in range(10)
        for j in range(8)
    }
    schema = {"type": "object", "properties": {"x": {"$ref": "#/$defs/L0_0"}}, "$defs": defs}
    assert _problems(schema, {"x": 5}) == ["x: must be an object"]
    assert _problems(schema, {"x": {"a": 5}}) == ["x.a: matches none of the allowed shapes"]
    assert _problems(schema, {"x": {"a": {"b": {}}}}) == []


@pytest.mark.parametrize(
    ("fmt", "good", "bad"),
    [
        ("date-time", "2024-01-02T03:04:05Z", "2024-01-02 noon"),
        ("date", "2024-01-02", "02/01/2024"),
        ("email", "a@example.com", "at-example.com"),
        ("uuid", "123e4567-e89b-12d3-a456-426614174000", "123e4567"),
    ],
)
def test_the_four_formats_are_checked(fmt: str, good: str, bad: str) -> None:
    schema = {"type": "object", "properties": {"v": {"type": "string", "format": fmt}}}
    assert _problems(schema, {"v": good}) == []
    assert _problems(schema, {"v": bad}) == [f"v: must be a valid {fmt}"]


@pytest.mark.parametrize("keyword", [{"pattern": "^[0-9]+$"}, {"format": "ipv4"}, {"multipleOf": 7}])
def test_keywords_outside_the_promised_subset_are_left_to_the_api(keyword: dict[str, Any]) -> None:
    schema = {"type": "object", "properties": {"v": {"type": ["string", "integer"], **keyword}}}
    assert _problems(schema, {"v": "abc"}) == []


def test_one_of_is_checked_as_any_of_so_overlapping_branches_do_not_fail() -> None:
    schema = {
        "type": "object",
        "properties": {
            "v": {"oneOf": [{"type": "string", "pattern": "^a"}, {"type": "string", "pattern": "^b"}]}
        },
    }
    assert _problems(schema, {"v": "zzz"}) == []
    assert _problems(schema, {"v": 1}) == ["v: matches none of the allowed shapes"]


def test_refs_into_defs_are_followed_and_recursive_ones_stop() -> None:
    schema = {
        "type": "object",
        "properties": {"node": {"$ref": "#/$defs/Node"}},
        "$defs": {
            "Node": {
                "type": "object",
                "properties": {"n": {"type": "integer"}, "next": {"$ref": "#/$defs/Node"}},
            }
        },
    }
    assert _problems(schema, {"node": {"n": "x"}}) == ["node.n: must be an integer"]
    assert _problems(schema, {"node": _value_chain(30)}) == []
    looping = {
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/A"}},
        "$defs": {"A": {"$ref": "#/$defs/A"}},
    }
    assert shape(looping, looping["$defs"]) == {"type": "object", "properties": {"a": True}}


def _value_chain(length: int) -> dict[str, Any]:
    node: dict[str, Any] = {"n": 1}
    for _ in range(length):
        node = {"n": 1, "next": node}
    return node


def test_messages_name_paths_and_odd_keys_are_escaped_never_values() -> None:
    schema = {"type": "object", "properties": {}, "additionalProperties": False}
    problems = _problems(schema, {"evil\r\nkey": "secret-value"})
    assert problems == ['arguments: has properties the tool does not take (["evil\\r\\nkey"])']
    assert "secret-value" not in problems[0]


@pytest.mark.parametrize(
    ("schema", "value", "message"),
    [
        ({"type": "string", "minLength": 3}, "ab", "v: is too short"),
        ({"type": "string", "maxLength": 1}, "ab", "v: is too long"),
        ({"type": "array", "minItems": 1}, [], "v: has too few items"),
        ({"type": "integer", "maximum": 5}, 6, "v: is above the maximum"),
        ({"type": "integer", "exclusiveMinimum": 5}, 5, "v: is not above the minimum"),
        ({"const": "x"}, "y", "v: must be the one fixed value"),
        ({"enum": ["a"]}, "b", "v: must be one of the listed values"),
        ({"type": "boolean"}, "true", "v: must be true or false"),
    ],
)
def test_each_checked_keyword_has_a_value_free_message(
    schema: dict[str, Any], value: Any, message: str
) -> None:
    assert _problems({"type": "object", "properties": {"v": schema}}, {"v": value}) == [message]


# -- a failed check is explained in time linear in the arguments ----------------------------------

SHAPES = [
    {"type": "object", "required": [f"k{i}"], "properties": {f"k{i}": {"type": "string"}}} for i in range(30)
]
UNION_LIST = {"type": "object", "properties": {"xs": {"type": "array", "items": {"oneOf": SHAPES}}}}


def test_a_long_array_that_fits_no_branch_of_a_union_names_the_first_problems_and_says_there_may_be_more() -> (
    None
):
    problems = _problems(UNION_LIST, {"xs": [{}] * 10_000})
    assert problems[-1] == "(the first 20 problems; there may be more)"
    assert len(problems) == 21
    assert all(p.endswith(": matches none of the allowed shapes") for p in problems[:-1])
    assert "xs[0]: matches none of the allowed shapes" in problems


def test_one_wrong_item_among_many_right_ones_is_named_alone() -> None:
    items = [{"k3": "fine"}] * 5_000 + [{"k3": 7}] + [{"k7": "fine"}] * 10
    assert _problems(UNION_LIST, {"xs": items}) == ["xs[5000]: matches none of the allowed shapes"]


def test_problems_below_all_of_additional_properties_and_prefix_items_are_named() -> None:
    schema = {
        "type": "object",
        "properties": {
            "both": {"allOf": [{"required": ["a"]}, {"properties": {"b": {"type": "integer"}}}]},
            "map": {"type": "object", "additionalProperties": {"type": "integer"}},
            "pair": {"type": "array", "prefixItems": [{"type": "string"}], "items": False},
        },
    }
    value = {"both": {"b": "x"}, "map": {"ok": 1, "bad": "x"}, "pair": [1, 2]}
    assert _problems(schema, value) == [
        "both.a: is required",
        "both.b: must be an integer",
        "map.bad: must be an integer",
        "pair[0]: must be a string",
        "pair[1]: is not allowed here",
    ]


def test_a_value_of_the_wrong_type_is_one_problem_not_one_per_missing_property() -> None:
    schema = {"type": "object", "properties": {"o": {"type": "object", "required": ["a", "b"]}}}
    assert _problems(schema, {"o": "text"}) == ["o: must be an object"]


@pytest.mark.parametrize("bad_at", [None, 0, 700, 1_499])
def test_large_arguments_checked_in_slices_get_the_validators_own_answer(bad_at: int | None) -> None:
    import jsonschema_rs

    nested = {
        "type": "object",
        "properties": {"outer": {"type": "object", "properties": {"xs": UNION_LIST["properties"]["xs"]}}},
    }
    items: list[Any] = [{f"k{i % 30}": "v"} for i in range(1_500)]
    if bad_at is not None:
        items[bad_at] = {"k1": 5}
    value = {"outer": {"xs": items}}
    whole = jsonschema_rs.Draft202012Validator(shape(nested)).is_valid(value)
    problems = _problems(nested, value)
    assert whole == (bad_at is None)
    assert problems == ([] if bad_at is None else [f"outer.xs[{bad_at}]: matches none of the allowed shapes"])


def test_the_explained_problems_are_those_the_validator_reports_for_the_example_shop() -> None:
    """Differential: below 20 problems, the walk names exactly what jsonschema-rs's own iter_errors
    (the old way, which expands every union) does, turned into our messages."""
    import random
    from pathlib import Path

    from specbridge import examples
    from specbridge.call._explain import describe
    from specbridge.document import load_document
    from specbridge.tools import convert
    from tests.support.mutate import mutate

    rng = random.Random(5)
    toolset = convert(load_document(str(Path(examples.__file__).parent / "shop.openapi.yaml")))
    compared = 0
    for _ in range(40):
        for tool in toolset.tools:
            checker = Checker(tool.input_schema)
            arguments = mutate(tool.input_schema, rng)
            if not isinstance(arguments, dict):
                continue
            try:
                checker.check(arguments)
                now: list[str] = []
            except ArgumentError as error:
                now = error.problems
            if any("too large to send" in problem or "there may be more" in problem for problem in now):
                continue
            whole = sorted({describe(error) for error in checker._validator.iter_errors(arguments)})
            assert now == whole, (tool.name, arguments)
            compared += 1
    assert compared > 200


@pytest.mark.parametrize("bad", [None, (0, 0), (3, 299), (4, 1), (9, 0)])
def test_heavy_and_light_items_of_a_large_array_are_checked_in_runs_with_the_validators_answer(
    bad: tuple[int, int] | None,
) -> None:
    import jsonschema_rs

    schema = {
        "type": "object",
        "properties": {"rows": {"type": "array", "items": {"type": "array", "items": {"type": "integer"}}}},
    }
    rows: list[list[Any]] = [[1] * (300 if index % 3 == 0 else 2) for index in range(10)] * 40
    rows = [list(row) for row in rows]
    if bad is not None:
        rows[bad[0]][bad[1]] = "x"
    value = {"rows": rows}
    assert jsonschema_rs.Draft202012Validator(shape(schema)).is_valid(value) == (bad is None)
    expected = [] if bad is None else [f"rows[{bad[0]}][{bad[1]}]: must be an integer"]
    assert _problems(schema, value) == expected


# -- schema edge cases ----------------------------------------------------------------------------


def _deep(levels: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(levels):
        value = {"a": value}
    return value


SCHEMA_EDGES: list[tuple[str, dict[str, Any]]] = [
    ("huge integer", {"items": [{"sku": "a", "qty": 10**400}]}),
    ("integer past 64 bits", {"items": [{"sku": "a", "qty": 2**64}]}),
    ("negative huge integer", {"items": [{"sku": "a", "qty": -(10**30)}]}),
    ("NaN", {"items": [{"sku": "a", "qty": float("nan")}]}),
    ("Infinity", {"items": [{"sku": "a", "qty": float("inf")}]}),
    ("minus Infinity", {"items": [], "nested": {"x": float("-inf")}}),
    ("deep nesting", {"items": [], "nested": _deep(10_000)}),
    ("10 MB string", {"items": [{"sku": "x" * 10_000_000, "qty": 1}]}),
    ("bytes value", {"items": [{"sku": b"raw", "qty": 1}]}),
    ("non-string key", {"items": [], "nested": {1: "x"}}),
    ("boolean as integer", {"items": [{"sku": "a", "qty": True}]}),
    ("float as integer", {"items": [{"sku": "a", "qty": 1.5}]}),
    ("wrong enum", {"items": [], "currency": "XXX"}),
    ("bad email", {"items": [], "contact": "not-an-email"}),
    ("bad date-time", {"items": [], "when": "yesterday"}),
    ("too many items", {"items": [{"sku": "a", "qty": 1}] * 51}),
    ("missing required", {}),
    ("unknown argument", {"items": [], "admin": True}),
]


# Past the call limits (call/_limits.py), refused before any schema work with their own codes.
LIMIT_CODES = {
    "deep nesting": ErrorCode.ARGUMENTS_TOO_DEEP,
    "10 MB string": ErrorCode.ARGUMENT_STRING_TOO_LONG,
}


@pytest.mark.parametrize(("case", "arguments"), SCHEMA_EDGES, ids=[case for case, _ in SCHEMA_EDGES])
async def test_an_argument_edge_case_is_refused_without_echoing_and_nothing_is_sent(
    make_caller: MakeCaller, upstream: Upstream, case: str, arguments: dict[str, Any]
) -> None:
    with anyio.fail_after(30):
        result = await make_caller().call("createOrder", {"shopId": "s1", **arguments})
    expected = LIMIT_CODES.get(case, ErrorCode.ARGUMENTS_INVALID)
    assert result.is_error and result.code == expected, (case, result.text)
    assert len(result.text) < 1000
    assert "XXX" not in result.text and "not-an-email" not in result.text and "yesterday" not in result.text
    assert upstream.requests == []


async def test_invalid_arguments_name_every_path_and_send_nothing(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    result = await _call(
        make_caller(),
        "createOrder",
        {"shopId": "s", "items": [{"sku": "a", "qty": 1}, {}, {"sku": "b", "qty": 0}]},
    )
    assert result.code == ErrorCode.ARGUMENTS_INVALID  # type: ignore[attr-defined]
    assert result.text == (  # type: ignore[attr-defined]
        "invalid arguments: items[1].qty: is required; items[1].sku: is required; items[2].qty: is below the minimum"
    )
    assert upstream.requests == []


async def test_pattern_is_left_to_the_api(make_caller: MakeCaller, upstream: Upstream) -> None:
    result = await _call(make_caller(), "createOrder", {"shopId": "s", "items": [], "note": "NOT LOWER"})
    assert not result.is_error  # type: ignore[attr-defined]


async def test_null_optional_arguments_from_strict_mode_are_dropped(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    result = await _call(
        make_caller(), "getItem", {"itemId": "1", "verbose": None, "tag": None, "session": None}
    )
    assert not result.is_error  # type: ignore[attr-defined]
    assert upstream.requests[-1].target == "/v1/items/1"


async def test_a_null_required_argument_is_refused(make_caller: MakeCaller, upstream: Upstream) -> None:
    result = await _call(make_caller(), "getItem", {"itemId": None})
    assert result.code == ErrorCode.ARGUMENTS_INVALID  # type: ignore[attr-defined]


async def test_null_optional_nested_fields_from_strict_mode_are_dropped(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    arguments = {
        "shopId": "s",
        "items": [{"sku": "a", "qty": 1}],
        "address": {"city": None, "street": "Main"},
    }
    result = await _call(make_caller(), "createOrder", {**arguments, "currency": None})
    assert not result.is_error, result.text  # type: ignore[attr-defined]
    assert json.loads(upstream.requests[-1].body) == {
        "items": [{"sku": "a", "qty": 1}],
        "address": {"street": "Main"},
    }


# Strict mode's nulls: the linear walk (skipped without a null, branches matched once per key set) drops
# exactly what the plain walk below drops (the one it replaced, kept here as the oracle).

_UNION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "xs": {
            "type": "array",
            "items": {
                "oneOf": [
                    {
                        "type": "object",
                        "required": ["kind"],
                        "properties": {
                            "kind": {"const": "a"},
                            "n": {"type": "integer"},
                            "s": {"type": "string"},
                        },
                    },
                    {
                        "type": "object",
                        "required": ["kind", "s"],
                        "properties": {"kind": {"enum": ["b", "c"]}, "s": {"type": ["string", "null"]}},
                    },
                    {
                        "allOf": [
                            {"properties": {"m": {"type": "object", "properties": {"q": {"type": "string"}}}}}
                        ]
                    },
                ]
            },
        },
        "top": {"type": "string"},
    },
    "required": ["top"],
}


def _oracle(value: Any, schema: Any, depth: int = 0) -> Any:
    from specbridge.call._check import MAX_DEPTH, _object_parts, _pinned_match

    if depth > MAX_DEPTH or not isinstance(schema, dict):
        return value
    if isinstance(value, dict):
        properties, required = _object_parts(schema)
        if not properties:
            branch = None
            for candidate in schema.get("anyOf") or []:
                props, _ = _object_parts(candidate)
                fits = props and value.keys() <= props.keys()
                if fits and all(_pinned_match(props[k], v) for k, v in value.items() if v is not None):
                    branch = candidate
                    break
            return value if branch is None else _oracle(value, branch, depth)
        return {
            key: _oracle(item, properties.get(key), depth + 1)
            for key, item in value.items()
            if item is not None or key in required
        }
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [_oracle(item, schema["items"], depth + 1) for item in value]
    return value


_SCALAR = st.one_of(st.none(), st.integers(-3, 3), st.sampled_from(["a", "b", "c", "x"]), st.booleans())
_ITEM = st.dictionaries(
    st.sampled_from(["kind", "n", "s", "m", "other"]),
    _SCALAR | st.dictionaries(st.sampled_from(["q", "r"]), _SCALAR, max_size=2),
    max_size=4,
)


@settings(max_examples=200, deadline=None)
@given(
    arguments=st.fixed_dictionaries(
        {}, optional={"xs": st.lists(_ITEM, max_size=12), "top": _SCALAR, "extra": _SCALAR}
    )
)
def test_strict_mode_nulls_are_dropped_as_the_plain_walk_drops_them(arguments: dict[str, Any]) -> None:
    checker = Checker(_UNION_SCHEMA)
    assert checker.drop_nulls(arguments) == _oracle(dict(arguments), checker._shaped)
