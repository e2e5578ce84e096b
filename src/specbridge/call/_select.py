"""The `fields` argument: the parts of a JSON answer a model asks for, as JSON-Pointer-like paths.

    ["data/*/id", "data/*/name", "has_more"]        (or one string: "data/*/id,data/*/name,has_more")

A path is keys separated by `/` (`~1` is a `/` inside a key and `~0` a `~`, as in JSON Pointer); `*` is
every item of a list (and every member of an object); a number is that item of a list. What the paths
reach is kept whole, with the objects and lists around it, in the answer's own order; everything else is
left out. A list keeps the items that hold something selected.

Not a query language: no filters, no functions, nothing evaluated. The work and memory are bounded by
the paths, never by the answer's keys: at most `MAX_PATHS` paths of at most `MAX_STEPS` keys, compiled
into one automaton whose state is a bit set over the positions in the paths (a key moves every position
it matches one step: `(state & (wildcards | positions_naming[key])) << 1`, nothing kept per key of the
answer); what a state needs (the keys it goes on with) is kept for at most `MAX_STATES` states, past that
worked out again and counted against `MAX_WORK`; and at most `MAX_VISITS` answer nodes are looked at. A
selection that reaches either bound returns what it found so far, and says so.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .._errors import ArgumentError

Json = Any
MAX_PATHS = 64
MAX_STEPS = 16
MAX_PATH_CHARS = 512
MAX_VISITS = 2_000_000  # answer nodes looked at; a 1 MB answer has at most about 500,000
MAX_STATES = 4_096  # automaton states whose facts are kept (each a bit set and the keys it goes on with)
MAX_WORK = 2_000_000  # named keys looked at to work out the facts of states past MAX_STATES
WILDCARD = "*"
_MISSING = object()


@dataclass
class Walk:
    """One selection's bookkeeping: nodes visited and work done (the bounds), which paths reached something."""

    visits: int = 0
    work: int = 0
    reached: int = 0  # the automaton's final positions met: the paths that matched something
    stopped: bool = False  # MAX_VISITS or MAX_WORK reached: what was selected so far is returned


@dataclass(frozen=True, slots=True)
class _Facts:
    """What one state of the automaton does at an answer node."""

    any_next: int  # the state after a key no path names (only the `*` positions move)
    wanted: tuple[str, ...] | None  # the keys it goes on with; None when a `*` takes any key
    leaves: tuple[str, ...] | None  # `wanted` when each of them ends a path (`data/*/id`, `data/*/name`)


class _Automaton:
    """The paths as one automaton over bit sets: path i's positions are bits `offset_i` to
    `offset_i + len(path i)` (the last one: the path is complete), so a key moves a state's matching
    positions one bit up. Nothing here grows with the answer: the facts of at most MAX_STATES states."""

    def __init__(self, paths: tuple[tuple[str, ...], ...]) -> None:
        self.start = self.wild = self.final = 0
        self.ends: list[int] = []  # each path's final bit
        named: dict[str, int] = {}
        offset = 0
        for path in paths:
            self.start |= 1 << offset
            for done, step in enumerate(path):
                if step == WILDCARD:
                    self.wild |= 1 << (offset + done)
                else:
                    named[step] = named.get(step, 0) | 1 << (offset + done)
            self.final |= 1 << (offset + len(path))
            self.ends.append(offset + len(path))
            offset += len(path) + 1
        self.named = named
        self.indexed = any(step.isdigit() for step in named)  # a path names a list item by position
        self._facts: dict[int, _Facts] = {}

    def step(self, state: int, key: str, facts: _Facts) -> int:
        mask = self.named.get(key)
        return facts.any_next if mask is None else (state & (self.wild | mask)) << 1

    def facts(self, state: int, walk: Walk) -> _Facts:
        found = self._facts.get(state)
        if found is not None:
            return found
        any_next = (state & self.wild) << 1
        wanted = None if state & self.wild else tuple(sorted(k for k, m in self.named.items() if state & m))
        leaves = None
        if wanted is not None and not state & self.final:
            moved = [(state & mask) << 1 for mask in map(self.named.__getitem__, wanted)]
            leaves = wanted if all(next_state & self.final for next_state in moved) else None
        found = _Facts(any_next, wanted, leaves)
        if len(self._facts) < MAX_STATES:
            self._facts[state] = found
        else:
            walk.work += len(self.named) + len(wanted or ())
            if walk.work > MAX_WORK:
                walk.stopped = True
        return found


@dataclass(frozen=True)
class Selection:
    """Compiled `fields` paths. `apply` keeps what they reach of an answer."""

    paths: tuple[tuple[str, ...], ...]
    texts: tuple[str, ...]  # each path as the model wrote it, for notes

    @functools.cached_property
    def _automaton(self) -> _Automaton:
        return _Automaton(self.paths)

    def apply(self, value: Json, walk: Walk | None = None) -> tuple[Json, Walk]:
        """What the paths reach in `value` (None when nothing), and the walk's bookkeeping."""
        walk = walk or Walk()
        found = self._select(value, self._automaton.start, walk)
        return (None if found is _MISSING else found), walk

    def unmatched(self, walk: Walk) -> list[str]:
        ends = self._automaton.ends
        return [text for index, text in enumerate(self.texts) if not walk.reached >> ends[index] & 1]

    def _pick(self, node: list[Json], keys: tuple[str, ...], state: int, walk: Walk) -> Json:
        walk.visits += len(node) * (1 + len(keys))
        keys = _ordered(node, keys)
        if len(keys) == 1:  # the usual `data/*/id`: no inner comprehension per item
            key = keys[0]
            items = [{key: item[key]} for item in node if isinstance(item, dict) and key in item]
        else:
            items = [
                picked
                for item in node
                if isinstance(item, dict) and (picked := {key: item[key] for key in keys if key in item})
            ]
        present = set().union(*items) if items else set()
        for key in keys:
            if key in present:
                walk.reached |= (state & self._automaton.named[key]) << 1 & self._automaton.final
        return items if items or not node else _MISSING

    def _select(self, node: Json, state: int, walk: Walk) -> Json:
        automaton = self._automaton
        whole = state & automaton.final
        if whole:
            walk.reached |= whole
            return node
        if walk.stopped:
            return _MISSING
        facts = automaton.facts(state, walk)
        if isinstance(node, dict):
            wanted = facts.wanted
            kept: dict[str, Json] = {}
            if wanted is None or len(node) <= 2 * len(wanted):
                keys = list(node)
            else:  # look up the few keys named rather than walk every member (answer order kept)
                keys = [key for key in wanted if key in node]
                if len(keys) > 1:
                    chosen = set(keys)
                    keys = [key for key in node if key in chosen]
            for key in keys:
                walk.visits += 1
                if walk.visits > MAX_VISITS or walk.stopped:
                    walk.stopped = True
                    break
                reached = automaton.step(state, str(key), facts)
                if not reached:
                    continue
                ends = reached & automaton.final
                if ends:  # a value the paths take whole: no call for it
                    walk.reached |= ends
                    kept[key] = node[key]
                    continue
                child = node[key]
                if isinstance(child, dict | list):  # a path going on into a single value finds nothing
                    found = self._select(child, reached, walk)
                    if found is not _MISSING:
                        kept[key] = found
            return kept if kept else _MISSING
        if isinstance(node, list):
            items: list[Json] = []
            every, indexed = facts.any_next, automaton.indexed
            if every and not indexed:
                leaves = automaton.facts(every, walk).leaves
                if leaves is not None and walk.visits + len(node) * (1 + len(leaves)) <= MAX_VISITS:
                    return self._pick(node, leaves, every, walk)
            for position, child in enumerate(node):
                walk.visits += 1
                if walk.visits > MAX_VISITS or walk.stopped:
                    walk.stopped = True
                    break
                reached = automaton.step(state, str(position), facts) if indexed else every
                if reached:
                    found = self._select(child, reached, walk)
                    if found is not _MISSING:
                        items.append(found)
            return items if items or not node else _MISSING
        return _MISSING


def _ordered(node: list[Json], keys: tuple[str, ...]) -> tuple[str, ...]:
    """`keys` in the order the list's first object has them (the answer's order), then the others."""
    first = next((item for item in node if isinstance(item, dict)), {})
    known = [key for key in first if key in keys]
    return (*known, *(key for key in keys if key not in known))


def parse_fields(value: Json) -> Selection | None:
    """The `fields` argument compiled; None when it is absent (null, an empty list or string). Raises
    ArgumentError (`arguments-invalid`) naming what is wrong: not a list of paths, too many, too deep."""
    if value is None:
        return None
    if isinstance(value, str):
        value = [part for part in value.split(",") if part.strip()]
    if not isinstance(value, Sequence) or isinstance(value, str | bytes):
        raise ArgumentError(['fields: must be a list of paths, such as ["data/*/id", "data/*/name"]'])
    if len(value) > MAX_PATHS:
        raise ArgumentError([f"fields: at most {MAX_PATHS} paths (got {len(value):,})"])
    paths: list[tuple[str, ...]] = []
    texts: list[str] = []
    for index, text in enumerate(value):
        paths.append(_path(index, text))
        texts.append(text.strip())
    return Selection(tuple(paths), tuple(texts)) if paths else None


def _path(index: int, text: Json) -> tuple[str, ...]:
    where = f"fields/{index}"
    if not isinstance(text, str):
        raise ArgumentError([f'{where}: must be a path such as "data/*/id" (a string)'])
    if len(text) > MAX_PATH_CHARS:
        raise ArgumentError([f"{where}: a path of at most {MAX_PATH_CHARS} characters"])
    steps = text.strip().strip("/").split("/")
    if steps == [""] or any(step == "" for step in steps):
        raise ArgumentError([f"{where}: an empty key in the path (write keys between single slashes)"])
    if len(steps) > MAX_STEPS:
        raise ArgumentError([f"{where}: at most {MAX_STEPS} keys deep (got {len(steps)})"])
    return tuple(step.replace("~1", "/").replace("~0", "~") for step in steps)


def top_fields(value: Json, limit: int = 20) -> str:
    """The answer's first keys (or `*` for a list), to tell a model what it could have asked for."""
    if isinstance(value, Mapping):
        return (
            f"the answer is an object with {_keys(value, limit)}"
            if value
            else "the answer is an empty object"
        )
    if isinstance(value, list):
        first = value[0] if value else None
        if isinstance(first, Mapping) and first:
            return f"the answer is a list (use * for its items); its first item has {_keys(first, limit)}"
        return "the answer is a list (use * for its items)"
    return "the answer is a single value"


def _keys(value: Mapping[str, Json], limit: int) -> str:
    keys = [str(key) for key in itertools.islice(value, limit + 1)]
    return ", ".join(keys[:limit]) + (", …" if len(keys) > limit else "")
