"""A JSON answer cut by the 1 MB read cap gives its whole values, never half of one."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from specbridge.call._salvage import salvage


def test_an_envelope_cut_inside_its_list_keeps_the_whole_items_and_says_which_list_went_on() -> None:
    text = '{"object": "list", "data": [{"id": 1, "tags": ["a"]}, {"id": 2, "tags": ["a", "b'
    found = salvage(text, 10_000)
    assert found is not None
    assert found.value == {"object": "list", "data": [{"id": 1, "tags": ["a"]}]}
    assert found.open_list == ("data",) and found.items == 1


def test_a_number_at_the_very_end_may_be_cut_so_it_is_left_out() -> None:
    found = salvage("[1, 2, 345", 10_000)
    assert found is not None and found.value == [1, 2]
    assert salvage("[1, 2.", 100).value == [1]  # type: ignore[union-attr]
    assert salvage('{"a": 1, "b": 2.', 100).value == {"a": 1}  # type: ignore[union-attr]
    assert salvage('{"a": 1, "b": 2e', 100).value == {"a": 1}  # type: ignore[union-attr]


def test_a_list_stops_taking_items_past_the_limit() -> None:
    text = json.dumps([{"i": i} for i in range(100_000)])[:900_000]
    found = salvage(text, 20_000)
    assert found is not None and found.open_list == ()
    assert found.value == [{"i": i} for i in range(len(found.value))]
    assert 1_000 < len(found.value) < 2_500  # about 20,000 bytes of items, not the 900 KB


def test_what_is_not_an_opened_list_or_object_gives_nothing() -> None:
    assert salvage("", 100) is None
    assert salvage('"a long string cut', 100) is None
    assert salvage("nul", 100) is None


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=6),
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=4), children, max_size=5)
    ),
    max_leaves=40,
)


def _consistent(found: Any, original: Any) -> bool:
    """`found` is `original` with its end left out: lists keep whole items, objects their first members
    whole and at most the last one itself cut the same way."""
    if isinstance(found, list):
        return isinstance(original, list) and found == original[: len(found)]
    if isinstance(found, dict):
        if not isinstance(original, dict) or list(found) != list(original)[: len(found)]:
            return False
        keys = list(found)
        return all(found[key] == original[key] for key in keys[:-1]) and (
            not keys
            or found[keys[-1]] == original[keys[-1]]
            or _consistent(found[keys[-1]], original[keys[-1]])
        )
    return found == original


@settings(max_examples=300)
@given(json_values.filter(lambda value: isinstance(value, list | dict)), st.floats(min_value=0, max_value=1))
def test_any_cut_of_any_answer_gives_whole_values_that_are_the_answers_own(value: Any, where: float) -> None:
    text = json.dumps(value)
    cut = text[: int(len(text) * where)]
    found = salvage(cut, 1_000_000)
    if found is not None:
        assert _consistent(found.value, value), (cut, found.value)
    assert salvage(text, 1_000_000) is not None and salvage(text, 1_000_000).value == value  # type: ignore[union-attr]
