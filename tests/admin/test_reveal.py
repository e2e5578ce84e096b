"""Invisible and bidi characters are shown as escapes a person can read, named, and marked on the page;
visible text (accents, other scripts, emoji) is shown as itself; JSON stays the same JSON value."""

from __future__ import annotations

import json

import pytest

from specbridge.admin import hidden_in, hidden_note, json_text, reveal
from specbridge.admin._reveal import reveal_html

RLO, PDF, ZWSP = "\u202e", "\u202c", "\u200b"
HIDDEN = {
    "\u200b": "ZERO WIDTH SPACE",
    "\u200d": "ZERO WIDTH JOINER",
    "\u2060": "WORD JOINER",
    "\ufeff": "ZERO WIDTH NO-BREAK SPACE",
    "\u202a": "LEFT-TO-RIGHT EMBEDDING",
    "\u202d": "LEFT-TO-RIGHT OVERRIDE",
    "\u202e": "RIGHT-TO-LEFT OVERRIDE",
    "\u202c": "POP DIRECTIONAL FORMATTING",
    "\u2066": "LEFT-TO-RIGHT ISOLATE",
    "\u2067": "RIGHT-TO-LEFT ISOLATE",
    "\u2069": "POP DIRECTIONAL ISOLATE",
    "\u200f": "RIGHT-TO-LEFT MARK",
    "\u061c": "ARABIC LETTER MARK",
    "\u00ad": "SOFT HYPHEN",
    "\u00a0": "NO-BREAK SPACE",
    "\u2028": "LINE SEPARATOR",
    "\u3164": "HANGUL FILLER",
    "\ufe0f": "VARIATION SELECTOR-16",
    "\U000e0041": "TAG LATIN CAPITAL LETTER A",
}


@pytest.mark.parametrize("char", sorted(HIDDEN))
def test_each_invisible_or_bidi_character_is_escaped_and_named(char: str) -> None:
    text = f"amount{char}1000"
    shown = reveal(text)
    assert char not in shown
    assert shown.startswith("amount\\u") and shown.endswith("1000")
    assert hidden_in(text) == [char]
    assert HIDDEN[char] in hidden_note([char])
    assert f"U+{ord(char):04X}" in hidden_note([char])


@pytest.mark.parametrize("char", ["\x1b", "\x7f", "\x9b", "\x00"])
def test_control_characters_a_terminal_obeys_are_escaped(char: str) -> None:
    assert reveal(f"a{char}b") == f"a\\u{ord(char):04x}b"


def test_visible_text_in_any_script_is_shown_as_itself() -> None:
    text = "Zoë pays 25 € — 東京, Москва, عربى, 👍🏽, 1 000"
    assert reveal(text) == text
    assert hidden_in(text) == []
    assert json_text({"note": text}) == json.dumps({"note": text}, indent=2, ensure_ascii=False)


def test_a_reversed_amount_reads_as_escapes_and_the_json_is_the_same_value() -> None:
    value = {"amount": f"{RLO}0001{PDF}", "note": f"re{ZWSP}fund", RLO + "key": "x\\u202e"}
    text = json_text(value)
    assert RLO not in text and ZWSP not in text and PDF not in text
    assert '"amount": "\\u202e0001\\u202c"' in text
    assert json.loads(text) == value  # the same JSON, only spelled with escapes
    assert '"x\\\\u202e"' in text  # a literal backslash-u stays distinguishable from an escape


def test_characters_past_the_bmp_are_escaped_as_json_surrogate_pairs() -> None:
    tag = "\U000e0041"
    assert json.loads(json_text(f"a{tag}")) == f"a{tag}"
    assert reveal(tag) == "\\udb40\\udc41"


def test_on_the_page_each_hidden_character_is_a_marked_escape_with_its_name_and_the_rest_is_escaped() -> None:
    shown = reveal_html(f'<b title="x">{RLO}9</b>')
    assert shown == (
        "&lt;b title=&quot;x&quot;&gt;"
        '<mark class="hidden" title="U+202E RIGHT-TO-LEFT OVERRIDE">\\u202e</mark>9&lt;/b&gt;'
    )
    assert reveal_html("line one\nline two") == "line one\nline two"
