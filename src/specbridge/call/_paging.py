"""How a model gets the rest of a shortened answer: the operation's own paging arguments, read from the
tool (a page size such as `limit`/`per_page`, a position such as `page`/`offset`/`cursor`/
`starting_after`), and where the answer itself points to the next page (a `next` link or cursor in the
body, a `Link: <…>; rel="next"` header).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..tools import Tool

Json = Any
# Argument names, lower case without `_`, `-`, `$`, `[`, `]` or `.`: `page[size]` is `pagesize`.
SIZE_NAMES = frozenset(
    {"limit", "perpage", "pagesize", "pagelimit", "maxresults", "maxitems", "maxpagesize", "count", "top",
     "size", "first", "last", "rows", "take", "numresults", "resultsperpage", "itemsperpage", "pagelen"}
)  # fmt: skip
POSITION_NAMES = frozenset(
    {"page", "pagenumber", "pageno", "offset", "skip", "start", "startindex", "from", "cursor", "after",
     "before", "startingafter", "endingbefore", "pagetoken", "nextpagetoken", "nexttoken", "continuation",
     "continuationtoken", "continue", "marker", "since", "sinceid", "maxid", "startcursor", "pageafter",
     "pagebefore", "pagecursor", "nextcursor", "startafter", "startkey", "exclusivestartkey"}
)  # fmt: skip
NEXT_KEYS = frozenset({"next", "nextpage", "nextpageurl", "nextlink", "odatanextlink", "nexturl", "nextcursor",
                       "nextpagetoken", "nexttoken", "continuationtoken", "endcursor", "continue"})  # fmt: skip
_STRIP = re.compile(r"[_\-$\[\].@]")
_LINK_NEXT = re.compile(r'<([^>]*)>\s*;[^,]*\brel\s*=\s*"?next"?', re.IGNORECASE)


def _plain(name: str) -> str:
    return _STRIP.sub("", name).lower()


@dataclass(frozen=True, slots=True)
class Paging:
    """The tool's paging arguments (their names as the model sees them)."""

    sizes: tuple[str, ...] = ()
    positions: tuple[str, ...] = ()

    @property
    def any(self) -> bool:
        return bool(self.sizes or self.positions)


NO_PAGING = Paging()


def paging_of(tool: Tool, bound: frozenset[str] = frozenset()) -> Paging:
    """The arguments of `tool` that page (query and body arguments named so), less those the config binds."""
    sizes: list[str] = []
    positions: list[str] = []
    for argument in tool.arguments:
        if argument.location not in ("query", "body") or argument.name in bound:
            continue
        plain = _plain(argument.original or argument.name)
        if plain in SIZE_NAMES:
            sizes.append(argument.name)
        elif plain in POSITION_NAMES:
            positions.append(argument.name)
    return Paging(tuple(sizes), tuple(positions))


def next_in_answer(value: Json) -> str | None:
    """Where the answer says its next page is: the path of a `next`-like member holding a value (at the
    top or one object down: `next`, `links/next`, `response_metadata/next_cursor`, `@odata.nextLink`)."""
    if not isinstance(value, Mapping):
        return None
    for key, child in value.items():
        if _plain(str(key)) in NEXT_KEYS and child not in (None, "", False):
            return str(key)
    for key, child in value.items():
        if isinstance(child, Mapping):
            for inner, found in child.items():
                if _plain(str(inner)) in NEXT_KEYS and found not in (None, "", False):
                    return f"{key}/{inner}"
    return None


def next_in_link(header: str) -> str | None:
    """The query of the `Link` header's `rel="next"` URL (`page=2&per_page=30`), or None."""
    found = _LINK_NEXT.search(header[:4096])
    if found is None:
        return None
    url = found.group(1)
    query = url.partition("?")[2]
    return query[:200] if query else None


def how_to_page(paging: Paging, kept: int | None, *, in_answer: str | None, link: str | None) -> str:
    """One sentence on getting the items after the first `kept` (None: a text, not counted in items),
    with this operation's own arguments."""
    size = " or ".join(f"`{name}`" for name in paging.sizes[:2])
    smaller = f"a smaller {size}" if kept is None else f"{size} at most {kept or 1}"
    position = " or ".join(f"`{name}`" for name in paging.positions[:3])
    if position:  # the answer's own next page would skip the items left out here
        if size:
            return f"call again with {smaller} and page with {position}"
        return f"call again with {position} set past the last item shown"
    text = f"call again with {smaller}" if size else ""
    if in_answer:
        text += f"{'; ' if text else ''}the answer's `{in_answer}` leads to its next page"
    elif link:
        text += f"{'; ' if text else ''}the API's Link header gives the next page as `{link}`"
    return text or "this operation has no paging arguments: narrow the request with its filters"
