"""`fields`: JSON-Pointer-like paths with `*`, compiled once, bounded work on any answer."""

from __future__ import annotations

import tracemalloc
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from specbridge._errors import ArgumentError
from specbridge.call import _select
from specbridge.call._select import MAX_PATHS, MAX_STEPS, parse_fields, top_fields

ANSWER = {
    "object": "list",
    "data": [
        {"id": "a", "title": "First", "owner": {"login": "x", "id": 1}, "tags": ["p", "q"]},
        {"id": "b", "title": "Second", "owner": {"login": "y", "id": 2}, "tags": []},
        {"id": "c", "owner": None},
    ],
    "has_more": True,
}


def select(paths: Any, value: Any = ANSWER) -> Any:
    selection = parse_fields(paths)
    assert selection is not None
    return selection.apply(value)[0]


def test_star_paths_keep_those_fields_of_every_item_in_the_answers_shape() -> None:
    assert select(["data/*/id", "data/*/title", "has_more"]) == {
        "data": [{"id": "a", "title": "First"}, {"id": "b", "title": "Second"}, {"id": "c"}],
        "has_more": True,
    }


def test_one_comma_separated_string_is_a_list_of_paths_too() -> None:
    assert select("data/*/id, has_more") == select(["data/*/id", "has_more"])


def test_a_path_that_ends_early_keeps_the_whole_value_there() -> None:
    assert select(["data/0/owner"]) == {"data": [{"owner": {"login": "x", "id": 1}}]}


def test_a_star_goes_through_object_members_as_well() -> None:
    assert select(["*/*/owner/login"]) == {"data": [{"owner": {"login": "x"}}, {"owner": {"login": "y"}}]}


def test_a_slash_inside_a_key_is_written_as_in_json_pointer() -> None:
    assert select(["a~1b/c~0d"], {"a/b": {"c~d": 1, "e": 2}}) == {"a/b": {"c~d": 1}}


def test_paths_that_match_nothing_are_named_and_nothing_at_all_is_none() -> None:
    selection = parse_fields(["data/*/id", "data/*/nmae"])
    assert selection is not None
    found, walk = selection.apply(ANSWER)
    assert found == {"data": [{"id": "a"}, {"id": "b"}, {"id": "c"}]}
    assert selection.unmatched(walk) == ["data/*/nmae"]
    assert select(["nothing/here"]) is None


def test_an_empty_list_reached_by_a_path_stays_an_empty_list() -> None:
    assert select(["data/1/tags/*"]) == {"data": [{"tags": []}]}


@pytest.mark.parametrize(
    ("value", "names"),
    [
        (42, "must be a list of paths"),
        ({"data": "id"}, "must be a list of paths"),
        ([1, 2], "fields/0: must be a path"),
        (["data//id"], "fields/0: an empty key"),
        (["/"], "fields/0: an empty key"),
        (["a/" * (MAX_STEPS + 1)], f"at most {MAX_STEPS} keys deep"),
        (["x"] * 10_000, f"fields: at most {MAX_PATHS} paths (got 10,000)"),
        (["x" * 10_000], "a path of at most"),
    ],
)
def test_bad_fields_are_arguments_invalid_naming_the_problem(value: Any, names: str) -> None:
    with pytest.raises(ArgumentError) as caught:
        parse_fields(value)
    assert names in caught.value.message
    assert caught.value.code == "arguments-invalid"


def test_no_fields_is_no_selection() -> None:
    assert parse_fields(None) is None
    assert parse_fields([]) is None
    assert parse_fields("") is None


def test_a_hostile_answer_of_100000_items_is_walked_once_whatever_the_patterns() -> None:
    answer = [{"a": i, "b": [i, i], "c": {"d": i}} for i in range(100_000)]
    assert len(orjson.dumps(answer)) > 1_000_000
    # 64 paths of wildcards that overlap: each answer node is still looked at once
    paths = ["*/*/*"] * 20 + ["*/a", "*/b/*", "*/c/d"] * 14 + ["*/" * 15 + "x"] * 2
    selection = parse_fields(paths[:MAX_PATHS])
    assert selection is not None
    found, walk = selection.apply(answer)
    nodes = 100_000 * (1 + 3 + 2 + 1)  # each item, its members, the list's and the object's members
    assert walk.visits <= nodes
    assert not walk.stopped
    assert found[0] == {"a": 0, "b": [0, 0], "c": {"d": 0}}


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text("abc", max_size=2), children, max_size=4)
    ),
    max_leaves=30,
)


def _leaves(value: Any, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    if isinstance(value, dict):
        return [leaf for key, child in value.items() for leaf in _leaves(child, (*path, key))]
    if isinstance(value, list):
        return [leaf for index, child in enumerate(value) for leaf in _leaves(child, (*path, str(index)))]
    return [(path, value)]


@given(json_values)
def test_selecting_one_leaf_by_its_path_finds_that_leaf(value: Any) -> None:
    for path, leaf in _leaves(value)[:5]:
        if not path or any(step in ("", "*") for step in path):
            continue
        text = "/".join(step.replace("~", "~0").replace("/", "~1") for step in path)
        found = select([text], value)
        for step in path:
            found = found[0] if isinstance(found, list) else found[step]
        assert found == leaf


def test_top_fields_tells_what_an_answer_holds() -> None:
    assert top_fields(ANSWER) == "the answer is an object with object, data, has_more"
    assert top_fields(ANSWER["data"]).startswith(
        "the answer is a list (use * for its items); its first item has id"
    )


def test_leaf_paths_over_a_list_pick_each_item_in_the_answers_key_order() -> None:
    answer = [{"name": "a", "id": 1, "x": 0}, {"id": 2}, "text", {"x": 1}, []]
    assert select(["*/id", "*/name"], answer) == [{"name": "a", "id": 1}, {"id": 2}]
    assert select(["*/id"], answer) == [{"id": 1}, {"id": 2}]
    selection = parse_fields(["*/id", "*/nope"])
    assert selection is not None
    _, walk = selection.apply(answer)
    assert selection.unmatched(walk) == ["*/nope"]


def test_a_map_of_46000_distinct_keys_under_64_wildcard_paths_holds_memory_of_the_paths_not_the_keys() -> (
    None
):
    # The outside review's attack (issue 31): every member of a ~1 MB map moves all 64 paths one step;
    # the matcher kept an entry per distinct key (~280 MB for one call).
    answer = {f"k{index:06d}": f"v{index:08d}" for index in range(46_000)}
    selection = parse_fields([f"*/f{index}" for index in range(MAX_PATHS)])
    assert selection is not None
    tracemalloc.start()
    try:
        found, walk = selection.apply(answer)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert found is None and not walk.stopped
    assert peak < 2_000_000


def test_past_the_states_it_keeps_a_selection_counts_its_work_and_returns_what_it_found(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_select, "MAX_STATES", 1)
    monkeypatch.setattr(_select, "MAX_WORK", 1_000)
    # every level moves the paths to a state of its own: none kept past the first, each worked out again
    answer = {"a": [{"b": {"c": index}} for index in range(1_000)]}
    selection = parse_fields(["a/*/b/c", *(f"a/*/b/x{index}" for index in range(30))])
    assert selection is not None
    found, walk = selection.apply(answer)
    assert walk.stopped and 1_000 < walk.work < 1_100
    assert found == {"a": [{"b": {"c": index}} for index in range(len(found["a"]))]}
    assert 0 < len(found["a"]) < 1_000
