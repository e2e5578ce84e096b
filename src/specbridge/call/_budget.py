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
PROBES = 24  # prefix encodings tried for one list when going item by item would take too long
REFINE = 2_000  # items measured one by one from the first guess to the exact end
EXACT_ITEMS = 256  # a list of more items has its size estimated from SAMPLED of them
SAMPLED = 64
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


def fit_json(value: Json, budget: int, *, reserve: int = 0, body: bytes | None = None) -> Fitted:
    """`value` unchanged when its compact JSON fits in `budget` tokens, else cut to about `budget` less
    `reserve` (room for a note). `body`: the answer as it came; when its estimate is well over the budget
    the whole answer is not encoded again: sizes come from samples (`_size`)."""
    data: bytes | None = None
    if body is None or estimate_tokens(body) <= 2 * budget:
        data = dumps_bytes(value)
        tokens = estimate_tokens(data)
        if tokens <= budget:
            return Fitted(value, data, tokens, tokens)
    budget = max(budget - reserve, 1)
    lists, members = _places(value)
    # lists first, largest first; then objects as large as maps
    measured = sorted(
        ((_size(found), path, found) for path, found in lists),
        key=lambda entry: (isinstance(entry[2], Mapping), -entry[0]),
    )
    if data is not None:
        size = len(data)
    else:
        assert body is not None
        size = _total(value, measured)
        tokens = round(estimate_tokens(body) * min(size / len(body), 1.0))
    allowance = int(size * budget / max(tokens, 1) * 0.97)  # a little under: one try is usually enough
    best: Fitted | None = None
    for _ in range(TRIES):
        shaped, cuts = _shorten(value, size, allowance, measured, members)
        shown = dumps_bytes(shaped)
        estimate = estimate_tokens(shown)
        best = Fitted(shaped, shown, tokens, estimate, tuple(cuts))
        if estimate <= budget or not shown:
            break
        allowance = int(allowance * budget / estimate * 0.97)
    assert best is not None
    return best


def _size(found: Json) -> int:
    """The compact JSON size of a list or object: exact up to EXACT_ITEMS items, else from SAMPLED items
    spread over it (so a 1 MB list is not encoded whole to learn its size)."""
    count = len(found)
    if count <= EXACT_ITEMS:
        return len(dumps_bytes(found))
    step = count / SAMPLED
    if isinstance(found, Mapping):
        pairs = list(found.items())
        part = len(dumps_bytes(dict(pairs[int(index * step)] for index in range(SAMPLED))))
    else:
        part = len(dumps_bytes([found[int(index * step)] for index in range(SAMPLED)]))
    return 2 + (count - 1) + round((part - 2 - (SAMPLED - 1)) * count / SAMPLED)


def _total(value: Json, measured: list[tuple[int, tuple[str, ...], Json]]) -> int:
    """The compact size of `value` from its lists' sizes and the encoding of what is around them."""
    around = value
    inside = 0
    for size, path, found in measured:
        if isinstance(found, list):
            around = _replaced(around, path, [])
            inside += size - 2
    return len(dumps_bytes(around)) + inside


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
            kept, kept_size = _prefix(*_measure_pairs(pairs), len(pairs), list_size, room)
            value = _replaced(value, path, dict(pairs[:kept]))
        else:
            kept, kept_size = _prefix(*_measure_items(found), len(found), list_size, room)
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


def _measure_items(items: list[Json]) -> tuple[Callable[[int], int], Callable[[int], int]]:
    """(the size of the first n items as a list, the bytes item i adds with its comma)"""
    return (
        lambda count: len(dumps_bytes(items[:count])),
        lambda index: len(dumps_bytes(items[index])) + (index > 0),
    )


def _measure_pairs(pairs: list[tuple[str, Json]]) -> tuple[Callable[[int], int], Callable[[int], int]]:
    return (
        lambda count: len(dumps_bytes(dict(pairs[:count]))),
        lambda index: len(dumps_bytes(dict(pairs[index : index + 1]))) - 2 + (index > 0),
    )


def _prefix(
    measure: Callable[[int], int], one: Callable[[int], int], count: int, size: int, room: int
) -> tuple[int, int]:
    """The most first items of a list of `count` (compact JSON of about `size` bytes) that fit in `room`
    bytes, and their size: an encoding of the first items an average item says fit (`measure(n)`), one
    more with those items' own average, then item by item (`one(i)`: item i's bytes and its comma) to the exact end; interpolation between
    prefixes if that would take more than REFINE steps."""
    if size <= room:
        return count, measure(count) if count <= EXACT_ITEMS else size
    if room <= 2 or count == 0:
        return 0, 2
    kept = min(max(int((room - 2) * count / max(size - 2, 1)), 0), count)
    found = measure(kept)
    if kept > 0:  # the first items' own average is a better guess than the whole list's
        better = min(max(int((room - 2) * kept / max(found - 2, 1)), 0), count)
        if abs(better - kept) > 8:
            kept, found = better, measure(better)
    for _ in range(REFINE):
        if found > room and kept > 0:
            kept -= 1
            found -= one(kept)
        elif found <= room and kept < count and found + one(kept) <= room:
            found += one(kept)
            kept += 1
        else:
            return kept, found
    if found <= room:
        return _interpolate(measure, (kept, found), (count, size), room)
    return _interpolate(measure, (0, 2), (kept, found), room)


def _interpolate(
    measure: Callable[[int], int], low: tuple[int, int], high: tuple[int, int], room: int
) -> tuple[int, int]:
    """Between a prefix known to fit and one known not to."""
    (low_count, low_size), (high_count, high_size) = low, high
    for probe in range(PROBES):
        if high_count - low_count <= 1:
            break
        if probe % 3 == 2:  # every third probe halves: interpolation alone can crawl on uneven items
            guess = (low_count + high_count) // 2
        else:
            guess = low_count + int(
                (room - low_size) * (high_count - low_count) / max(high_size - low_size, 1)
            )
        guess = min(max(guess, low_count + 1), high_count - 1)
        found = measure(guess)
        if found <= room:
            low_count, low_size = guess, found
        else:
            high_count, high_size = guess, found
    return low_count, low_size


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
