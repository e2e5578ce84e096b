"""Argument paths as messages show them: `body.items[2].qty`, and keys a message must not trust quoted,
escaped and cut so that a hostile property name cannot forge a path or flood the message."""

from __future__ import annotations

from specbridge.call._paths import format_path, safe_key


def test_names_join_with_dots_and_indexes_go_in_brackets() -> None:
    assert format_path(("body", "items", 2, "qty")) == "body.items[2].qty"
    assert format_path(["matrix", 0, 1]) == "matrix[0][1]"
    assert format_path((3, "name")) == "[3].name"


def test_the_empty_path_is_the_arguments_as_a_whole() -> None:
    assert format_path(()) == "arguments"
    assert format_path([]) == "arguments"


def test_plain_names_with_dashes_and_underscores_are_shown_as_they_are() -> None:
    assert safe_key("order_id") == "order_id"
    assert safe_key("X-Request-Id") == "X-Request-Id"


def test_a_name_with_dots_spaces_or_quotes_is_quoted_so_it_cannot_pass_for_a_path() -> None:
    assert format_path(("body", "a.b")) == 'body.["a.b"]'  # not `body.a.b`, a path two levels deep
    assert safe_key('say "hi"') == '["say \\"hi\\""]'
    assert safe_key("") == '[""]'


def test_control_and_non_ascii_characters_are_escaped_not_printed() -> None:
    assert safe_key("line\nbreak") == '["line\\nbreak"]'
    assert safe_key("café") == '["caf\\xe9"]'
    assert "\u202e" not in safe_key("evil\u202etxt")  # no right-to-left override reaches a message


def test_a_long_name_is_cut_to_forty_characters_with_an_ellipsis() -> None:
    shown = safe_key("k" * 65)
    assert shown == '["' + "k" * 40 + '…"]'
    assert safe_key("k" * 64) == "k" * 64  # up to 64 plain characters stay as they are
