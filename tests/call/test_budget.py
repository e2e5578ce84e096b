"""Shortening an answer to a token budget: whole items of the largest list, never half a value."""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from specbridge.call import _budget
from specbridge.call._budget import Cut, fit_json, fit_text
from specbridge.call._tokens import estimate_tokens


def _items(count: int, text: str = "a customer who ordered a mug") -> list[dict[str, Any]]:
    return [{"id": f"cus_{i:06d}", "name": f"Customer {i}", "note": text} for i in range(count)]


def test_an_answer_within_the_budget_is_unchanged() -> None:
    value = {"data": _items(3)}
    fitted = fit_json(value, 20_000)
    assert fitted.value is value and fitted.cuts == ()
    assert orjson.loads(fitted.data) == value


def test_a_list_keeps_its_first_whole_items_that_fit() -> None:
    items = _items(2000)
    fitted = fit_json(items, 2_000)
    kept = orjson.loads(fitted.data)
    assert 0 < len(kept) < 2000
    assert kept == items[: len(kept)]
    assert fitted.cuts == (Cut((), len(kept), 2000),)
    assert fitted.shown_tokens <= 2_000
    assert estimate_tokens(orjson.dumps(items[: len(kept) + 5])) > 2_000 * 0.85  # about all that fits


def test_the_envelope_around_the_list_stays_whole() -> None:
    value = {"object": "list", "data": _items(2000), "has_more": False, "url": "/v1/customers"}
    fitted = fit_json(value, 3_000)
    shown = orjson.loads(fitted.data)
    assert shown["object"] == "list" and shown["has_more"] is False and shown["url"] == "/v1/customers"
    assert shown["data"] == value["data"][: len(shown["data"])]
    assert fitted.cuts[0].path == ("data",) and fitted.cuts[0].total == 2000


def test_the_largest_list_is_shortened_first_then_the_next() -> None:
    value = {"small": _items(40), "meta": {"big": _items(3000)}}
    fitted = fit_json(value, 5_000)
    shown = orjson.loads(fitted.data)
    assert fitted.cuts[0].path == ("meta", "big")
    assert shown["small"] == value["small"]  # it fits beside what is left of the big one
    both = fit_json({"a": _items(3000), "b": _items(3000)}, 1_000)
    assert [cut.path for cut in both.cuts] == [("a",), ("b",)]
    assert both.shown_tokens <= 1_000


def test_a_huge_value_with_no_list_is_left_out_whole_and_named() -> None:
    value = {"id": "doc_1", "title": "Report", "content": "word " * 200_000}
    fitted = fit_json(value, 1_000)
    assert orjson.loads(fitted.data) == {"id": "doc_1", "title": "Report"}
    assert fitted.cuts == (Cut(("content",), 0, fitted.cuts[0].total, member=True),)


def test_a_large_object_keyed_by_id_keeps_its_first_members() -> None:
    value = {"users": {f"u{i}": {"name": f"User {i}"} for i in range(5000)}}
    fitted = fit_json(value, 1_000)
    shown = orjson.loads(fitted.data)["users"]
    assert 0 < len(shown) < 5000
    assert list(shown) == [f"u{i}" for i in range(len(shown))]
    assert fitted.cuts[0].mapping


@pytest.mark.parametrize("given_body", [False, True])
def test_a_hostile_1_mb_answer_of_100000_items_costs_a_few_budget_sized_encodings(
    monkeypatch: pytest.MonkeyPatch, given_body: bool
) -> None:
    answer = [{"i": i} for i in range(100_000)]
    body = orjson.dumps(answer)
    assert len(body) > 1_000_000
    encoded: list[int] = []
    real = _budget.dumps_bytes

    def counting(value: Any, *, indent: bool = False) -> bytes:
        data = real(value, indent=indent)
        encoded.append(len(data))
        return data

    monkeypatch.setattr(_budget, "dumps_bytes", counting)
    fitted = fit_json(answer, 20_000, body=body if given_body else None)
    assert 1_000 < fitted.cuts[0].kept < 100_000
    assert orjson.loads(fitted.data) == answer[: fitted.cuts[0].kept]
    assert len(encoded) <= _budget.TRIES * (_budget.REFINE + _budget.PROBES + 3)  # never one per item
    if given_body:  # the answer as it came says it is over: it is never encoded whole again
        assert max(encoded) < len(body) // 4
        assert sum(encoded) < len(body)
    else:
        assert sum(encoded) <= 2 * len(body)


def test_text_keeps_its_first_whole_lines() -> None:
    text = "\n".join(f"line {i}: the order shipped" for i in range(10_000))
    fitted = fit_text(text, 1_000)
    assert text.startswith(fitted.text + "\n")
    assert 0 < fitted.lines < fitted.total_lines == 10_000
    assert estimate_tokens(fitted.text) <= 1_000


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=30) | st.dictionaries(st.text(max_size=8), children, max_size=10)
    ),
    max_leaves=300,
)


def _at(value: Any, path: tuple[str, ...]) -> Any:
    for key in path:
        value = value[key]
    return value


@settings(max_examples=200)
@given(json_values, st.integers(min_value=1, max_value=400))
def test_a_shortened_answer_is_valid_json_made_of_whole_prefixes_of_the_original(
    value: Any, budget: int
) -> None:
    fitted = fit_json(value, budget)
    shown = json.loads(fitted.data)  # the standard library: integers past 64 bits stay exact
    if not fitted.cuts:
        assert shown == value
        return
    for cut in fitted.cuts:
        if cut.member:
            continue
        before, after = _at(value, cut.path), _at(shown, cut.path)
        if cut.mapping:
            assert list(after.items()) == list(before.items())[: cut.kept]
        else:
            assert after == before[: cut.kept] and cut.total == len(before)
