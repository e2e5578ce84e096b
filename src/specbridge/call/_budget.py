"""An answer cut to a token budget without cutting a value in half.

JSON: the largest list (the answer itself, or a list reached through objects only, such as `data` in
`{"data": [...], "has_more": true}`) keeps its first items that fit, whole, and drops the rest; when the
rest of the answer is still over, the next largest list, up to `MAX_LISTS`; past that, the largest
members of objects are left out whole, up to `MAX_MEMBERS`. Sizes come from compact JSON, whose text of a
part is the part's own text, so one measure of each list (they never overlap) and sums do the rest; the
first items that fit are found by interpolation over prefixes (a few encodings of about the budget's
size, never one per item). Text that is not JSON keeps its first lines that fit.

The work is bounded by the answer's size plus a few times the budget's, whatever the answer holds.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .._json import dumps_bytes
from ._tokens import estimate_tokens

Json = Any
MAX_LISTS = 4  # lists (then large objects) shortened in one answer, largest first
MAP_MEMBERS = 64  # an object of this many members or more may be shortened like a list (a map by id)
MAX_MEMBERS = 32  # object members left out, largest first, when shortened lists are not enough
MAX_NODES = 10_000  # objects looked at for lists and members (through objects only)
MAX_PLACES = 4_096  # lists and members measured
MAX_DEPTH = 16
PROBES = 24  # prefix encodings tried for one list
TRIES = 3  # rounds when the estimate of what is kept is still over (the rate of its bytes differs)


@dataclass(frozen=True, slots=True)
class Cut:
    """What shaping left out at one place: a list (or a large object, `mapping`) kept its first `kept`
    of `total` items (members), or (member) the object member at `path` was left out whole (`total`:
    its size in bytes)."""

    path: tuple[str, ...]
    kept: int
    total: int
    member: bool = False
    mapping: bool = False


@dataclass(frozen=True, slots=True)
class Fitted:
    value: Json
    data: bytes  # the value as compact JSON
    tokens: int  # estimated tokens of the whole answer (before any cut)
    shown_tokens: int  # estimated tokens of `data`
    cuts: tuple[Cut, ...] = ()


def fit_json(value: Json, budget: int, *, reserve: int = 0) -> Fitted:
    """`value` unchanged when its compact JSON fits in `budget` tokens, else cut to about `budget` less
    `reserve` (room for a note)."""
    data = dumps_bytes(value)
    tokens = estimate_tokens(data)
    if tokens <= budget:
        return Fitted(value, data, tokens, tokens)
    budget = max(budget - reserve, 1)
    lists, members = _places(value)
    # lists first, largest first; then objects as large as maps
    measured = sorted(
        ((len(dumps_bytes(found)), path, found) for path, found in lists),
        key=lambda entry: (isinstance(entry[2], Mapping), -entry[0]),
    )
    allowance = int(len(data) * budget / tokens)
    best: Fitted | None = None
    for _ in range(TRIES):
        shaped, cuts = _shorten(value, len(data), allowance, measured, members)
        shown = dumps_bytes(shaped)
        estimate = estimate_tokens(shown)
        best = Fitted(shaped, shown, tokens, estimate, tuple(cuts))
        if estimate <= budget or not shown:
            break
        allowance = int(allowance * budget / estimate * 0.97)
    assert best is not None
    return best


def _shorten(
    value: Json,
    size: int,
    allowance: int,
    lists: list[tuple[int, tuple[str, ...], Json]],
    members: list[tuple[tuple[str, ...], str]],
) -> tuple[Json, list[Cut]]:
    cuts: list[Cut] = []
    for list_size, path, found in lists:
        if size <= allowance or len(cuts) >= MAX_LISTS:
            break
        if any(cut.path[: len(path)] == path or path[: len(cut.path)] == cut.path for cut in cuts):
            continue  # inside or around a part already shortened
        room = allowance - (size - list_size)
        if isinstance(found, Mapping):
            pairs = list(found.items())
            kept, kept_size = _prefix(_measure_pairs(pairs), len(pairs), list_size, room)
            value = _replaced(value, path, dict(pairs[:kept]))
        else:
            kept, kept_size = _prefix(_measure_items(found), len(found), list_size, room)
            value = _replaced(value, path, found[:kept])
        size -= list_size - kept_size
        cuts.append(Cut(path, kept, len(found), mapping=isinstance(found, Mapping)))
    if size > allowance:
        sized = []
        for path, key in members:
            place = (*path, key)
            if any(cut.path[: len(place)] == place or place[: len(cut.path)] == cut.path for cut in cuts):
                continue  # around or inside a part already shortened: its size is no longer what it was
            member = _at(value, (*path, key))
            sized.append((len(dumps_bytes(member)) + len(dumps_bytes(key)) + 2, path, key))
        for member_size, path, key in sorted(sized, key=lambda entry: -entry[0])[:MAX_MEMBERS]:
            if size <= allowance:
                break
            if any(cut.member and (*path, key)[: len(cut.path)] == cut.path for cut in cuts):
                continue  # inside a member left out just before
            value = _without(value, path, key)
            size -= member_size
            cuts.append(Cut((*path, key), 0, member_size, member=True))
    return value, cuts


def _measure_items(items: list[Json]) -> Callable[[int], int]:
    return lambda count: len(dumps_bytes(items[:count]))


def _measure_pairs(pairs: list[tuple[str, Json]]) -> Callable[[int], int]:
    return lambda count: len(dumps_bytes(dict(pairs[:count])))


def _prefix(measure: Callable[[int], int], count: int, size: int, room: int) -> tuple[int, int]:
    """The most first items of a list of `count` (compact JSON `size` bytes; `measure(n)`: the size of
    its first n) that fit in `room` bytes, and their size: interpolation between a prefix known to fit
    and one known not to."""
    if size <= room:
        return count, size
    low, low_size, high, high_size = 0, 2, count, size
    for probe in range(PROBES):
        if high - low <= 1 or room < 2:
            break
        if probe % 3 == 2:  # every third probe halves: interpolation alone can crawl on uneven items
            guess = (low + high) // 2
        else:
            guess = low + int((room - low_size) * (high - low) / max(high_size - low_size, 1))
        guess = min(max(guess, low + 1), high - 1)
        found = measure(guess)
        if found <= room:
            low, low_size = guess, found
        else:
            high, high_size = guess, found
    return low, low_size


def _places(value: Json) -> tuple[list[tuple[tuple[str, ...], Json]], list[tuple[tuple[str, ...], str]]]:
    """The lists reached through objects only (the answer itself when it is one) and the objects of
    MAP_MEMBERS members or more, and the members of those objects; at most MAX_NODES objects, MAX_DEPTH
    deep, MAX_PLACES places of each kind."""
    if isinstance(value, list):
        return [((), value)], []
    lists: list[tuple[tuple[str, ...], Json]] = []
    members: list[tuple[tuple[str, ...], str]] = []
    queue: list[tuple[tuple[str, ...], Json]] = [((), value)]
    seen = 0
    while queue and seen < MAX_NODES:
        path, node = queue.pop()
        seen += 1
        if not isinstance(node, Mapping):
            continue
        if len(node) >= MAP_MEMBERS and len(lists) < MAX_PLACES:
            lists.append((path, node))
        for key, child in node.items():
            if len(members) < MAX_PLACES:
                members.append((path, key))
            if isinstance(child, list) and len(lists) < MAX_PLACES:
                lists.append(((*path, key), child))
            elif isinstance(child, Mapping) and len(path) < MAX_DEPTH:
                queue.append(((*path, key), child))
    return lists, members


def _at(value: Json, path: tuple[str, ...]) -> Json:
    for key in path:
        value = value[key]
    return value


def _replaced(value: Json, path: tuple[str, ...], new: Json) -> Json:
    """`value` with the part at `path` replaced by `new`: the objects on the way copied, nothing else."""
    if not path:
        return new
    copy = dict(value)
    copy[path[0]] = _replaced(value[path[0]], path[1:], new)
    return copy


def _without(value: Json, path: tuple[str, ...], key: str) -> Json:
    if not path:
        return {name: child for name, child in value.items() if name != key}
    copy = dict(value)
    copy[path[0]] = _without(value[path[0]], path[1:], key)
    return copy


@dataclass(frozen=True, slots=True)
class FittedText:
    text: str
    tokens: int  # estimated tokens of the whole text
    lines: int  # lines kept
    total_lines: int


def fit_text(text: str, budget: int) -> FittedText:
    """`text`'s first lines within about `budget` tokens (its first words when a line is longer)."""
    data = text.encode("utf-8", "replace")
    tokens = estimate_tokens(data)
    total_lines = text.count("\n") + 1
    if tokens <= budget:
        return FittedText(text, tokens, total_lines, total_lines)
    end = int(len(text) * budget / tokens * 0.97)
    cut = text.rfind("\n", 0, end)
    if cut < end // 2:
        cut = max(text.rfind(" ", 0, end), 0) or end
    shown = text[:cut]
    return FittedText(shown, tokens, shown.count("\n") + (1 if shown else 0), total_lines)
