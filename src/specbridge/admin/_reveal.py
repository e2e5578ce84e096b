"""Characters a person cannot see, shown so that one value never reads as another.

A model writes the arguments a person approves. Zero-width characters, bidi controls (U+202E
RIGHT-TO-LEFT OVERRIDE turns `1000` on screen into `0001`), other format and control characters,
look-alike spaces and invisible fillers are shown as their JSON escape (`\\u202e`), which reads as
what it is and keeps JSON text valid JSON that parses to the same value; on the page each is also
marked (`<mark class="hidden">` with the character's name as its title). Used by the approvals page
and by `specbridge approvals list/show`. Look-alike letters (a Cyrillic a for a Latin one) are visible
characters and are shown as they are.
"""

from __future__ import annotations

import html
import json
import re
import unicodedata
from functools import lru_cache
from typing import Any

# Categories never shown as themselves: controls, format characters (zero-width, bidi, tags),
# private use, surrogates, unassigned, line and paragraph separators.
HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp"})
# Visible-category characters that draw nothing (or a blank): variation selectors, the combining
# grapheme joiner, Mongolian free variation selectors, Khmer inherent vowels, Hangul fillers, the
# Braille blank.
INVISIBLE = frozenset(
    {0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x180B, 0x180C, 0x180D, 0x180F, 0x2800, 0x3164, 0xFFA0}
    | set(range(0xFE00, 0xFE10))
    | set(range(0xE0100, 0xE01F0))
)
# The fast path: only characters outside printable ASCII (and the newline of JSON's own layout) are
# looked at one by one.
CANDIDATES = re.compile(r"[^\x20-\x7e\n]")


@lru_cache(maxsize=4096)
def is_hidden(char: str) -> bool:
    """Whether `char` (one character) is shown escaped rather than as itself."""
    category = unicodedata.category(char)
    return category in HIDDEN_CATEGORIES or (category == "Zs" and char != " ") or ord(char) in INVISIBLE


def escape(char: str) -> str:
    """`char` as JSON writes it escaped: `\\u202e`, a surrogate pair past the BMP."""
    point = ord(char)
    if point <= 0xFFFF:
        return f"\\u{point:04x}"
    point -= 0x10000
    return f"\\u{0xD800 + (point >> 10):04x}\\u{0xDC00 + (point & 0x3FF):04x}"


def describe(char: str) -> str:
    """`U+202E RIGHT-TO-LEFT OVERRIDE`; controls and unnamed ones by their category."""
    name = unicodedata.name(char, "") or f"<{unicodedata.category(char)}>"
    return f"U+{ord(char):04X} {name}"


def hidden_in(text: str) -> list[str]:
    """The hidden characters of `text`, each once, in order of first appearance."""
    seen: dict[str, None] = {}
    for found in CANDIDATES.finditer(text):
        if is_hidden(found.group()):
            seen.setdefault(found.group())
    return list(seen)


def reveal(text: str, *, keep: str = "") -> str:
    """`text` with every hidden character (except those in `keep`) as its JSON escape."""
    return CANDIDATES.sub(
        lambda found: (
            escape(found.group()) if found.group() not in keep and is_hidden(found.group()) else found.group()
        ),
        text,
    )


def json_text(value: Any, *, indent: int | None = 2, sort_keys: bool = True) -> str:
    """`value` as JSON (non-ASCII letters as themselves) with every hidden character escaped: the same
    JSON value, safe to print to a terminal or to read on screen."""
    text = json.dumps(value, indent=indent, ensure_ascii=False, sort_keys=sort_keys)
    # JSON escapes controls below U+0020 itself; the newlines left are its own layout.
    return reveal(text, keep="\n")


def reveal_html(text: str, *, keep: str = "\n") -> str:
    """`text` HTML-escaped, every hidden character as a marked escape naming it."""
    out: list[str] = []
    start = 0
    for found in CANDIDATES.finditer(text):
        char = found.group()
        if char in keep or not is_hidden(char):
            continue
        out.append(html.escape(text[start : found.start()], quote=True))
        out.append(f'<mark class="hidden" title="{html.escape(describe(char))}">{escape(char)}</mark>')
        start = found.end()
    out.append(html.escape(text[start:], quote=True))
    return "".join(out)


def hidden_note(chars: list[str]) -> str:
    """One line naming the hidden characters found (empty when there are none)."""
    if not chars:
        return ""
    shown = ", ".join(describe(char) for char in chars[:5]) + (" …" if len(chars) > 5 else "")
    return f"invisible or bidirectional characters, shown as \\u escapes: {shown}"
