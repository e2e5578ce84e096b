"""The `fields` argument: the parts of a JSON answer a model asks for, as JSON-Pointer-like paths.

    ["data/*/id", "data/*/name", "has_more"]        (or one string: "data/*/id,data/*/name,has_more")

A path is keys separated by `/` (`~1` is a `/` inside a key and `~0` a `~`, as in JSON Pointer); `*` is
every item of a list (and every member of an object); a number is that item of a list. What the paths
reach is kept whole, with the objects and lists around it, in the answer's own order; everything else is
left out. A list keeps the items that hold something selected.

Not a query language: no filters, no functions, nothing evaluated. The work is bounded: at most
`MAX_PATHS` paths of at most `MAX_STEPS` keys, compiled into one automaton (a set of positions in the
paths, each set met once per answer node), and at most `MAX_VISITS` answer nodes looked at, whatever
the answer: a 1 MB answer has far fewer nodes than that.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._errors import ArgumentError

Json = Any
MAX_PATHS = 64
MAX_STEPS = 16
MAX_PATH_CHARS = 512
MAX_VISITS = 2_000_000  # answer nodes looked at; a 1 MB answer has at most about 500,000
WILDCARD = "*"
_MISSING = object()
State = frozenset[tuple[int, int]]  # (path index, how many of its steps are matched)


@dataclass
class Walk:
    """One selection's bookkeeping: nodes visited (the bound) and which paths reached something."""

    visits: int = 0
    matched: set[int] = field(default_factory=set)
    stopped: bool = False  # MAX_VISITS reached: what was selected so far is returned


@dataclass(frozen=True)
class Selection:
    """Compiled `fields` paths. `apply` keeps what they reach of an answer."""

    paths: tuple[tuple[str, ...], ...]
    texts: tuple[str, ...]  # each path as the model wrote it, for notes
    _moves: dict[tuple[State, str], State] = field(default_factory=dict, compare=False, repr=False)
    _states: dict[State, tuple[tuple[int, ...], tuple[str, ...] | None]] = field(
        default_factory=dict, compare=False, repr=False
    )

    @functools.cached_property
    def _indexed(self) -> bool:
        """Whether a path names a list item by its position (else positions need no look-up)."""
        return any(step.isdigit() for path in self.paths for step in path)

    def apply(self, value: Json, walk: Walk | None = None) -> tuple[Json, Walk]:
        """What the paths reach in `value` (None when nothing), and the walk's bookkeeping."""
        walk = walk or Walk()
        start: State = frozenset((index, 0) for index in range(len(self.paths)))
        found = self._select(value, start, walk)
        return (None if found is _MISSING else found), walk

    def unmatched(self, walk: Walk) -> list[str]:
        return [text for index, text in enumerate(self.texts) if index not in walk.matched]

    def _step(self, state: State, key: str) -> State:
        """The positions reached from `state` by one key of the answer (memoised: an answer repeats keys)."""
        memo = self._moves.get((state, key))
        if memo is not None:
            return memo
        reached = frozenset(
            (index, done + 1)
            for index, done in state
            if done < len(self.paths[index]) and self.paths[index][done] in (key, WILDCARD)
        )
        if len(self._moves) < 65_536:
            self._moves[(state, key)] = reached
        return reached

    def _info(self, state: State) -> tuple[tuple[int, ...], tuple[str, ...] | None]:
        """The paths `state` completes, and the keys it goes on with (None when one takes any key, `*`)."""
        found = self._states.get(state)
        if found is None:
            whole = tuple(index for index, done in state if done == len(self.paths[index]))
            steps = {self.paths[index][done] for index, done in state if done < len(self.paths[index])}
            found = (whole, None if WILDCARD in steps else tuple(sorted(steps)))
            if len(self._states) < 65_536:
                self._states[state] = found
        return found

    def _leaves(self, state: State) -> tuple[str, ...] | None:
        """The keys of `state` when each of them ends a path (`data/*/id`, `data/*/name`): the items of a
        list are then picked in one comprehension, not walked one call at a time."""
        wanted = self._info(state)[1]
        if wanted is None or self._info(state)[0]:
            return None
        return wanted if all(self._info(self._step(state, key))[0] for key in wanted) else None

    def _pick(self, node: list[Json], keys: tuple[str, ...], state: State, walk: Walk) -> Json:
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
                walk.matched.update(self._info(self._step(state, key))[0])
        return items if items or not node else _MISSING

    def _select(self, node: Json, state: State, walk: Walk) -> Json:
        whole, wanted = self._info(state)
        if whole:
            walk.matched.update(whole)
            return node
        if isinstance(node, dict):
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
                if walk.visits > MAX_VISITS:
                    walk.stopped = True
                    break
                reached = self._step(state, str(key))
                if not reached:
                    continue
                ends = self._info(reached)[0]
                if ends:  # a value the paths take whole: no call for it
                    walk.matched.update(ends)
                    kept[key] = node[key]
                    continue
                found = self._select(node[key], reached, walk)
                if found is not _MISSING:
                    kept[key] = found
            return kept if kept else _MISSING
        if isinstance(node, list):
            items: list[Json] = []
            every, indexed = self._step(state, WILDCARD), self._indexed
            leaves = self._leaves(every) if every and not indexed else None
            if leaves is not None and walk.visits + len(node) * (1 + len(leaves)) <= MAX_VISITS:
                return self._pick(node, leaves, every, walk)
            for position, child in enumerate(node):
                walk.visits += 1
                if walk.visits > MAX_VISITS:
                    walk.stopped = True
                    break
                reached = every | self._step(state, str(position)) if indexed else every
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
