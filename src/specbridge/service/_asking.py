"""approvals.by: client: the question the client's user reads. They approve exactly what will be sent,
so they see every value of it (PRODUCT §5.1; issue 24, item 3):

- each value on a line of its own, under its whole path (`payment.amount`, `items[2].qty`), so a long
  value never hides another: a value longer than `MAX_VALUE` characters is cut on its own, and says
  how long it was;
- the model's arguments apart from the values the gateway adds (bindings, the derived idempotency key),
  each part with its number of values and its size in all;
- characters that could make one value read as another (controls, bidi and zero-width marks) shown as
  escapes.

A question that would not fit `MAX_QUESTION` characters (or `MAX_VALUES` values) is not asked: `question`
answers None, the approval waits for an operator, and the agent's result says why.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator, Mapping
from typing import Any

from .._json import dumps

Json = Any
MAX_VALUE = 200  # characters of one value shown before it is cut
MAX_VALUES = 200  # values one question may show
MAX_QUESTION = 10_000  # characters of a whole question


def leaves(value: Json, path: str = "") -> Iterator[tuple[str, Json]]:
    """Every value under `value` with its path; an empty object or array is a value of its own."""
    if isinstance(value, Mapping) and value:
        for key, item in value.items():
            yield from leaves(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list | tuple) and value:
        for index, item in enumerate(value):
            yield from leaves(item, f"{path}[{index}]")
    else:
        yield path, value


def visible(text: str) -> str:
    """`text` with every character that is not shown as itself (controls, format marks such as bidi
    overrides and zero-width spaces, unassigned code points) written as its escape."""
    return "".join(
        f"\\u{ord(ch):04x}" if ch != " " and unicodedata.category(ch)[0] in "CZ" else ch for ch in text
    )


def _line(path: str, value: Json) -> str:
    shown = dumps(value)
    cut = ""
    if len(shown) > MAX_VALUE:
        shown, cut = shown[:MAX_VALUE] + "…", f" (cut here: {len(shown):,} characters in all)"
    return f"  {visible(dumps(path))}:{visible(shown)}{cut}"


def _part(title: str, values: Mapping[str, Json]) -> list[str] | None:
    found = list(leaves(dict(values)))
    if len(found) > MAX_VALUES:
        return None
    if not values:
        return [f"{title}: none"]
    size = len(dumps(dict(values)))
    count = f"{len(found)} value{'s' if len(found) != 1 else ''}"
    return [f"{title} ({count}, {size:,} characters in all):", *(_line(path, value) for path, value in found)]


def question(api: str, tool: str, arguments: Mapping[str, Json], bound: Mapping[str, Json]) -> str | None:
    """What the user reads: the tool, every value the model chose, and apart from them every value the
    gateway adds; None when that is too much to show (an operator answers instead)."""
    chosen = _part("Arguments from the assistant", arguments)
    added = _part("Values the gateway adds (the assistant did not choose them)", bound)
    if chosen is None or added is None:
        return None
    text = "\n".join(
        [
            f"The assistant wants to call {visible(tool)} on {visible(api)}, which needs your approval "
            "before anything is sent.",
            *chosen,
            *added,
            "Accept to send exactly this call once; decline to refuse it.",
        ]
    )
    return text if len(text) <= MAX_QUESTION else None
