"""Every error code the docs name, on any page, is a real `ErrorCode` (docs/errors.md's headings are
checked both ways by tests/test_error_codes.py; this is every other place a code is written).

A code is read where the docs write one: `[code]` in inline code or a fenced block (`error [code]: …`,
`[approval-pending] …`), `"code": "…"` in JSON, a cell of a table's `code` column, and inline code
that looks like one of ours (`approval-expird` starts like `approval-expired`: the first word of some
code, then a dash)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from specbridge._errors import ErrorCode
from specbridge.lint import default_registry

from . import _reading

CODES = frozenset(code.value for code in ErrorCode)
RULES = frozenset(default_registry().rules)  # lint's rule ids: `[rule]` in its text format, and in prose
PLACEHOLDERS = frozenset({"…", "..."})  # `{"code": "…"}`: the shape of an answer, not a code
KEBAB = re.compile(r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)+$")
BRACKETED = re.compile(r"\[([a-z][a-z0-9]*(?:-[a-z0-9]+)+)\]")
JSON_CODE = re.compile(r'"code"\s*:\s*"([^"]+)"')
FAMILIES = frozenset(code.split("-")[0] for code in CODES)

# Inline code that starts like a code of ours but names something else, and what it is.
NOT_CODES = {
    "admin-api": "a `via` value of the `approval answered` log line",
    "admin-page": "a `via` value of the `approval answered` log line",
    "webhook-id": "a Standard Webhooks header",
    "webhook-timestamp": "a Standard Webhooks header",
    "webhook-signature": "a Standard Webhooks header",
}


def written() -> Iterator[tuple[str, str, str]]:
    """(where, the code as written, how it was recognised) for every code the docs write."""
    for span in _reading.spans():
        place = _reading.where(span.page, span.line)
        for found in BRACKETED.finditer(span.text):
            yield place, found.group(1), "[code]"
        for found in JSON_CODE.finditer(span.text):
            yield place, found.group(1), '"code"'
        if KEBAB.match(span.text) and span.text.split("-")[0] in FAMILIES and span.text not in NOT_CODES:
            yield place, span.text, "inline code"
    for block in _reading.blocks():
        for offset, line in enumerate(block.lines):
            place = _reading.where(block.page, block.line + offset)
            for found in BRACKETED.finditer(line):
                yield place, found.group(1), "[code]"
            for found in JSON_CODE.finditer(line):
                yield place, found.group(1), '"code"'
    yield from _code_columns()


def _code_columns() -> Iterator[tuple[str, str, str]]:
    """The inline code of every cell under a table header that says `code`."""
    for page in _reading.PAGES:
        column: int | None = None
        for number, line, _ in _reading.prose(page):
            if not line.startswith("|"):
                column = None
                continue
            cells = [cell.lower() for cell in _reading.cells(line)]
            if column is None:
                column = cells.index("code") if "code" in cells else -1
                continue
            if column < 0 or column >= len(cells):
                continue
            for found in _reading.INLINE.finditer(_reading.cells(line)[column]):
                yield _reading.where(page, number), found.group(2).strip(), "code column"


def test_every_error_code_the_docs_write_is_an_error_code() -> None:
    wrong = [
        f"{place}: `{code}` ({how})"
        for place, code, how in written()
        if code not in CODES and code not in PLACEHOLDERS and not (how != "code column" and code in RULES)
    ]
    assert not wrong, "error codes that are not in ErrorCode:\n" + "\n".join(wrong)


def test_the_reading_finds_codes_in_each_way_they_are_written() -> None:
    found = {how for _, _, how in written()}
    assert found == {"[code]", '"code"', "inline code", "code column"}
