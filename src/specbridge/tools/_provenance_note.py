"""The lines of a tool's description that say where its ids come from, one short line per argument:

    `movie_id`: from `search_movie` or `movie_top_rated` (`results[].id`).

Only confident producers are named (`_provenance.CONFIDENT`), at most two per argument, and only those a
listing serves (`named`: a toolset renames tools and leaves others out). Within a description budget the
lines take at most half of it, whole lines only; the rest of the description is shortened around them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ._model import Producer, Provenance
from ._provenance import CONFIDENT

NAMED_PER_ARGUMENT = 2
Named = Callable[[str], str | None]  # a producing tool's name as served (None: not served here)


def provenance_note(found: Sequence[Provenance], named: Named | None = None, limit: int | None = None) -> str:
    """The lines for `found`; `named` renames (or leaves out) producers; `limit`: at most this long."""
    lines: list[str] = []
    size = 0
    for entry in found:
        line = _line(entry, named or _same)
        if not line:
            continue
        if limit is not None and size + len(line) + 1 > limit:
            break
        lines.append(line)
        size += len(line) + 1
    return "\n".join(lines)


def _line(entry: Provenance, named: Named) -> str:
    if not entry.confident:
        return ""
    producers: list[tuple[str, Producer]] = []
    for producer in entry.producers:
        served = named(producer.tool)
        if served is not None and producer.score >= CONFIDENT:
            producers.append((served, producer))
        if len(producers) == NAMED_PER_ARGUMENT:
            break
    if not producers:
        return ""
    fields = {producer.field for _, producer in producers}
    if len(fields) == 1:
        names = " or ".join(f"`{name}`" for name, _ in producers)
        return f"`{entry.argument}`: from {names} (`{fields.pop()}`)."
    named_fields = " or ".join(f"`{name}` (`{producer.field}`)" for name, producer in producers)
    return f"`{entry.argument}`: from {named_fields}."


def _same(name: str) -> str:
    return name
