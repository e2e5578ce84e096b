"""The whole values at the start of a JSON answer that was cut by the 1 MB read cap.

`{"object": "list", "data": [{…}, {…}, … {"id": "cus_9` becomes `{"object": "list", "data": [{…}, {…}]}`:
each complete value is decoded by the standard library's C scanner (`raw_decode`), and only the lists
and objects still open where the answer was cut are walked here, one member or item at a time. A list
stops taking items once `limit` bytes of them are read (the budget cuts further anyway), so the work is
about `limit` bytes, plus one failed decoding of an open object. A value cut in half is left out:
never half a value.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

Json = Any
MAX_DEPTH = 32
_DECODER = json.JSONDecoder()
_SPACE = " \t\n\r"


@dataclass(frozen=True, slots=True)
class Salvaged:
    value: Json
    open_list: tuple[str, ...] | None  # where the list that went on past the cut is (() for the answer)
    items: int  # how many of its items were kept


class _Cut(Exception):
    pass


class _Walk:
    def __init__(self, text: str, limit: int) -> None:
        self.text = text
        self.limit = limit
        self.open_list: tuple[str, ...] | None = None
        self.items = 0

    def skip(self, at: int) -> int:
        while at < len(self.text) and self.text[at] in _SPACE:
            at += 1
        if at >= len(self.text):
            raise _Cut
        return at

    def value(self, at: int, path: tuple[str, ...]) -> tuple[Json, int, bool]:
        """(value, end, whole) of the value at `at`; raises _Cut when nothing whole is there."""
        at = self.skip(at)
        opener = self.text[at]
        if opener == "[" and len(path) < MAX_DEPTH:
            return self.array(at + 1, path)
        try:
            found, end = _DECODER.raw_decode(self.text, at)
        except (ValueError, RecursionError):
            if opener == "{" and len(path) < MAX_DEPTH:
                return self.object(at + 1, path)
            raise _Cut from None
        if end == len(self.text) and isinstance(found, int | float) and not isinstance(found, bool):
            raise _Cut  # a number at the very end may have been cut in half
        return found, end, True

    def array(self, at: int, path: tuple[str, ...]) -> tuple[Json, int, bool]:
        items: list[Json] = []
        start = at
        try:
            at = self.skip(at)
            if self.text[at] == "]":
                return items, at + 1, True
            while True:
                if at - start > self.limit:
                    raise _Cut
                item, end, whole = self.value(at, (*path, str(len(items))))
                at = self.skip(end) if whole else len(self.text)
                if not whole or self.text[at] not in ",]":
                    raise _Cut  # an item cut in half (`1.` of `1.5`) is left out
                items.append(item)
                if self.text[at] == "]":
                    return items, at + 1, True
                at += 1
        except _Cut:  # the outermost list cut is the one that went on (an inner one went with its item)
            self.open_list, self.items = path, len(items)
            return items, len(self.text), False

    def object(self, at: int, path: tuple[str, ...]) -> tuple[Json, int, bool]:
        members: dict[str, Json] = {}
        try:
            at = self.skip(at)
            if self.text[at] == "}":
                return members, at + 1, True
            while True:
                key, end = _DECODER.raw_decode(self.text, at)
                if not isinstance(key, str):
                    raise _Cut
                at = self.skip(end)
                if self.text[at] != ":":
                    raise _Cut
                value, end, whole = self.value(at + 1, (*path, key))
                if not whole:
                    members[key] = value  # a list or object cut inside: what it holds whole
                    return members, len(self.text), False
                at = self.skip(end)
                if self.text[at] not in ",}":
                    raise _Cut  # a value cut in half (`1.` of `1.5`) is left out
                members[key] = value
                if self.text[at] == "}":
                    return members, at + 1, True
                at = self.skip(at + 1)
        except (_Cut, ValueError):
            return members, len(self.text), False


def salvage(text: str, limit: int) -> Salvaged | None:
    """The whole values at the start of `text` (JSON cut short), taking at most about `limit` bytes of
    the items of a list; None when not even the outermost list or object can be opened."""
    walk = _Walk(text, limit)
    try:
        start = walk.skip(0)
    except _Cut:
        return None
    if text[start] not in "[{":
        return None
    try:
        value, _, _ = walk.value(start, ())
    except _Cut:
        return None
    return Salvaged(value, walk.open_list, walk.items)
