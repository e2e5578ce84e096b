"""How many tokens a model reads in a text: a fast estimate, no tokenizer.

Each byte is put in a class (lower-case and upper-case letter, digit, quote, other punctuation, space,
newline, non-ASCII) by one `bytes.translate`, and the estimate is a weighted sum of the classes and of
three pairs that make text dense: a lower-case letter then an upper-case one, a letter beside a digit
(ids, hashes, base64), and two upper-case letters in a row (a word in capitals is one token, not one a
letter). The weights were fitted (least largest relative error) against `o200k_base`, the tokenizer of
current OpenAI models, on 2,420 JSON texts, compact and indented: answers of 10 to 1,000 items and of
1 MB built from the corpus's response schemas, and the corpus documents' own response examples. Within ±15 % of
it on every one; within about ±22 % of `cl100k_base` (p95 13 %). A non-ASCII byte counts a quarter
token (Cyrillic, CJK), set by hand: the corpus's answers hold too few to fit it. Large texts are estimated from evenly spaced slices of `SAMPLE` bytes in all,
so one estimate costs a fraction of a millisecond whatever the size (docs/benchmarks-gateway.md).
"""

from __future__ import annotations

import math

SAMPLE = 8 * 1024  # bytes looked at, at most, in SLICES slices spread over the text
SLICES = 16
_TABLE = bytearray(b"." * 256)
for _code in range(0x30, 0x3A):
    _TABLE[_code] = ord("0")
for _code in range(0x41, 0x5B):
    _TABLE[_code] = ord("A")
for _code in range(0x61, 0x7B):
    _TABLE[_code] = ord("a")
for _code in range(0x80, 0x100):
    _TABLE[_code] = ord("u")
for _char in ' \n"':
    _TABLE[ord(_char)] = ord(_char)
CLASSES = bytes(_TABLE)
_LETTERS = bytes(_TABLE).replace(b"A", b"x").replace(b"a", b"x")  # any letter -> x, digits stay 0

# weights per byte class and per pair, fitted (see the module's docstring)
LOWER, UPPER, DIGIT, QUOTE, PUNCT, SPACE, NEWLINE = 0.16, 0.977, 0.403, 0.231, 0.598, 0.077, 1.867
LOWER_UPPER, LETTER_DIGIT, UPPER_UPPER, NON_ASCII = 0.093, 0.872, -1.918, 0.25


def estimate_tokens(data: bytes | str) -> int:
    """About how many tokens `data` (UTF-8) is for a model; 0 for nothing."""
    if isinstance(data, str):
        data = data.encode("utf-8", "replace")
    size = len(data)
    if size <= SAMPLE:
        return math.ceil(_weighted(data)) if data else 0
    step, width = size // SLICES, SAMPLE // SLICES
    sample = b"".join(data[start : start + width] for start in range(0, step * SLICES, step))
    return math.ceil(_weighted(sample) * size / len(sample))


def tokens_per_byte(data: bytes) -> float:
    """The estimate's rate for `data`: what one more byte of text like it costs."""
    return estimate_tokens(data) / len(data) if data else 0.25


def _weighted(data: bytes) -> float:
    kinds = data.translate(CLASSES)
    lower, upper, digit = kinds.count(b"a"), kinds.count(b"A"), kinds.count(b"0")
    quote, space, newline, other = kinds.count(b'"'), kinds.count(b" "), kinds.count(b"\n"), kinds.count(b"u")
    punct = len(data) - lower - upper - digit - quote - space - newline - other
    letters = data.translate(_LETTERS)
    letter_digit = letters.count(b"x0") + letters.count(b"0x")
    total = (
        LOWER * lower
        + UPPER * upper
        + DIGIT * digit
        + QUOTE * quote
        + PUNCT * punct
        + SPACE * space
        + NEWLINE * newline
        + NON_ASCII * other
        + LOWER_UPPER * kinds.count(b"aA")
        + LETTER_DIGIT * letter_digit
        + UPPER_UPPER * kinds.count(b"AA")
    )
    return max(total, len(data) / 8)
