"""JSON pointers (RFC 6901), written in one module: escaping round-trips and walking finds the node."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from specbridge.document.pointer import (
    escape_token,
    find_pointer,
    nodes_along,
    pointer_of,
    pointer_tokens,
    unescape_token,
    walk_pointer,
)

DATA = {"paths": {"/users/{id}": {"get": {"tags": ["a", "b"]}}}, "a~b": {"c/d": 1}}


@given(st.lists(st.text(alphabet="ab~/01", max_size=6), max_size=4))
def test_tokens_survive_a_round_trip_through_a_pointer(tokens: list[str]) -> None:
    assert pointer_tokens(pointer_of(*tokens)) == tokens or tokens == [""]


def test_tilde_one_is_undone_before_tilde_zero() -> None:
    assert escape_token("~1") == "~01"
    assert unescape_token("~01") == "~1"


def test_walking_follows_escaped_keys_and_list_indexes() -> None:
    assert walk_pointer(DATA, "/paths/~1users~1{id}/get/tags/1") == "b"
    assert walk_pointer(DATA, "/a~0b/c~1d") == 1
    assert walk_pointer(DATA, "") is DATA


def test_walking_off_the_data_raises_and_finding_answers_none() -> None:
    with pytest.raises(KeyError):
        walk_pointer(DATA, "/paths/nowhere")
    with pytest.raises(KeyError):
        walk_pointer(DATA, "paths")
    assert find_pointer(DATA, "/paths/nowhere") is None
    assert find_pointer(DATA, "/a~0b/c~1d") == 1
    assert len(nodes_along(DATA, "/paths/nowhere/deeper")) == 2
