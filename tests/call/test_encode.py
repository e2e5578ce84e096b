"""The small encoders of the request builder: refusals that say nothing was sent, percent-encoding of
everything but unreserved characters, scalars as a URL should carry them, and `deepObject` pairs the way
Rack, PHP and qs read them."""

from __future__ import annotations

from urllib.parse import unquote

from hypothesis import given
from hypothesis import strategies as st

from specbridge import ErrorCode
from specbridge.call._encode import deep_pairs, name_key, quote, refuse, scalar


def test_a_refusal_carries_its_code_and_says_nothing_was_sent() -> None:
    refused = refuse("the path parameter is empty", ErrorCode.ARGUMENTS_INVALID)
    assert refused.code is ErrorCode.ARGUMENTS_INVALID
    assert str(refused).endswith("the path parameter is empty; nothing was sent")


def test_quote_leaves_only_unreserved_characters_unencoded() -> None:
    assert quote("a/b c?d#e&f=g") == "a%2Fb%20c%3Fd%23e%26f%3Dg"
    assert quote("Az09-._~") == "Az09-._~"
    assert quote("é") == "%C3%A9"


@given(st.text(st.characters(exclude_categories=["Cs"])))
def test_quote_round_trips_and_never_leaves_a_delimiter(value: str) -> None:
    quoted = quote(value)
    assert unquote(quoted) == value
    assert not set(quoted) & set("/?#&=+ ")


def test_scalars_read_as_a_url_carries_them() -> None:
    assert [scalar(True), scalar(False), scalar(None), scalar("x y")] == ["true", "false", "", "x y"]
    assert [scalar(7), scalar(1.0), scalar(-3.0), scalar(1.5)] == ["7", "1", "-3", "1.5"]


def test_a_huge_whole_float_and_containers_are_written_as_json() -> None:
    assert scalar(1e20) == "1e+20"
    assert scalar({"a": [1, "b"]}) == '{"a":[1,"b"]}'
    assert scalar(2**70) == str(2**70)  # past 64 bits, still exact


def test_parameter_names_compare_trimmed_and_case_insensitive() -> None:
    assert name_key("  X-Request-ID ") == name_key("x-request-id") == "x-request-id"


def test_deep_object_nests_keys_in_brackets_to_any_depth() -> None:
    assert deep_pairs("metadata", {"order": {"id": 42, "paid": True}, "note": None}) == [
        ("metadata[order][id]", "42"),
        ("metadata[order][paid]", "true"),
        ("metadata[note]", ""),
    ]


def test_deep_object_writes_scalar_arrays_with_empty_brackets_and_object_arrays_by_index() -> None:
    assert deep_pairs("tags", ["a", "b"]) == [("tags[]", "a"), ("tags[]", "b")]
    assert deep_pairs("items", [{"id": "p1"}, {"id": "p2", "qty": 2}]) == [
        ("items[0][id]", "p1"),
        ("items[1][id]", "p2"),
        ("items[1][qty]", "2"),
    ]
    assert deep_pairs("grid", [[1, 2], [3]]) == [("grid[0][]", "1"), ("grid[0][]", "2"), ("grid[1][]", "3")]
    assert deep_pairs("plain", 5) == [("plain", "5")]
