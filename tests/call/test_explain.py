"""`Explainer`: why arguments fail a shaped schema. None when they fit; else at most `cap` value-free
problems by path and whether the walk stopped at the cap; large arguments go to the validator in slices
of at most SLICE values, and subschema validators are compiled once and kept."""

from __future__ import annotations

from typing import Any

import jsonschema_rs
import pytest

from specbridge.call._explain import SLICE, Explainer, describe

VALIDATOR = jsonschema_rs.Draft202012Validator

ORDER: dict[str, Any] = {
    "type": "object",
    "required": ["id", "lines"],
    "additionalProperties": False,
    "properties": {
        "id": {"type": "string", "minLength": 2},
        "status": {"enum": ["open", "paid"]},
        "lines": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["qty"],
                "properties": {"qty": {"type": "integer", "minimum": 1}, "sku": {"type": "string"}},
            },
        },
    },
}


def explainer(schema: dict[str, Any]) -> Explainer:
    return Explainer(schema, jsonschema_rs.Draft202012Validator(schema, validate_formats=True))


def test_arguments_that_fit_have_no_explanation() -> None:
    assert explainer(ORDER).explain({"id": "o-1", "lines": [{"qty": 1, "sku": "p1"}]}, cap=5) is None


def test_each_problem_is_named_by_its_path_and_the_walk_says_it_did_not_stop_early() -> None:
    value = {"id": "o", "status": "lost", "lines": [{"qty": 1}, {"qty": 0}, {"sku": 3}], "extra": 1}
    found, stopped = explainer(ORDER).explain(value, cap=20) or ([], True)
    assert sorted(found) == [
        "arguments: has properties the tool does not take (extra)",
        "id: is too short",
        "lines[1].qty: is below the minimum",
        "lines[2].qty: is required",
        "lines[2].sku: must be a string",
        "status: must be one of the listed values",
    ]
    assert stopped is False


def test_the_walk_stops_at_the_cap_and_says_there_may_be_more() -> None:
    value = {"id": "o-1", "lines": [{"qty": 0}] * 10}
    found, stopped = explainer(ORDER).explain(value, cap=3) or ([], False)
    assert found == ["lines[0].qty: is below the minimum", "lines[1].qty: is below the minimum",
                     "lines[2].qty: is below the minimum"]  # fmt: skip
    assert stopped is True


def test_no_message_repeats_the_wrong_value() -> None:
    secret = "sk_live_do-not-echo"
    value = {"id": secret * 3, "status": secret, "lines": [{"qty": secret}, {"qty": 1, "sku": [secret]}]}
    schema = {**ORDER, "properties": {**ORDER["properties"], "id": {"type": "string", "maxLength": 5}}}
    found, _ = explainer(schema).explain(value, cap=20) or ([], False)
    assert len(found) == 4
    assert not [problem for problem in found if "do-not-echo" in problem]


class Counting:
    """A real compiled validator that notes the most values one `is_valid` call walks into: all of them
    under a schema that describes children, one level under a node's own keywords (children `true`)."""

    def __init__(self, schema: Any, **options: Any) -> None:
        self.validator = VALIDATOR(schema, **options)
        self.deep = _describes_children(schema)
        Counting.compiled += 1

    compiled = 0
    largest = 0

    def is_valid(self, value: Any) -> bool:
        if self.deep:
            Counting.largest = max(Counting.largest, _count(value))
        return bool(self.validator.is_valid(value))

    def iter_errors(self, value: Any) -> Any:
        return self.validator.iter_errors(value)


def _describes_children(schema: Any) -> bool:
    if not isinstance(schema, dict):
        return False
    properties = schema.get("properties", {})
    nested = ("items", "prefixItems", "anyOf", "allOf", "oneOf")
    return any(key in schema for key in nested) or any(item is not True for item in properties.values())


def _count(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + sum(_count(item) for item in value.values())
    if isinstance(value, list):
        return 1 + sum(_count(item) for item in value)
    return 1


@pytest.mark.parametrize("bad_at", [None, 0, 2_999])
def test_large_arguments_reach_the_validator_in_slices_and_get_its_own_answer(
    bad_at: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(jsonschema_rs, "Draft202012Validator", Counting)
    monkeypatch.setattr(Counting, "largest", 0)
    lines: list[Any] = [{"qty": index + 1, "sku": "p"} for index in range(3_000)]
    if bad_at is not None:
        lines[bad_at] = {"qty": 0}
    value = {"id": "o-1", "lines": lines}
    root = Counting(ORDER, validate_formats=True)
    explained = Explainer(ORDER, root).explain(value, cap=5)
    assert explained == (None if bad_at is None else ([f"lines[{bad_at}].qty: is below the minimum"], False))
    assert 0 < Counting.largest <= SLICE < _count(value)


def test_subschema_validators_are_compiled_once_and_kept_for_the_next_explanation(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(jsonschema_rs, "Draft202012Validator", Counting)
    monkeypatch.setattr(Counting, "compiled", 0)
    kept = Explainer(ORDER, Counting(ORDER))
    value = {"id": "o", "lines": [{"qty": 0}]}
    first = kept.explain(value, cap=5)
    after_first = Counting.compiled
    assert kept.explain(value, cap=5) == first
    assert Counting.compiled == after_first > 1


def test_describe_turns_a_validator_error_into_a_message_under_a_prefix() -> None:
    validator = jsonschema_rs.Draft202012Validator(
        {"type": "object", "properties": {"n": {"type": "integer"}}}
    )
    (error,) = validator.iter_errors({"n": "seven"})
    assert describe(error) == "n: must be an integer"
    assert describe(error, ("body", 2)) == "body[2].n: must be an integer"
