"""The tags of an API's tools: each operation's own `tags`, and every tag with its tool count."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..tools import Tool
from ._document import operation_tags, tag_descriptions

TAGS_IN_DESCRIPTION = 600  # characters of tag names the search tool's description may carry


def tag_list(tags: Sequence[tuple[str, int]]) -> str:
    """The tags' names for a search tool's description (search mode's, code mode's), cut with `…` past
    `TAGS_IN_DESCRIPTION` characters."""
    shown: list[str] = []
    size = 0
    for name, _ in tags:
        size += len(name) + 2
        if size > TAGS_IN_DESCRIPTION:
            shown.append("…")
            break
        shown.append(name)
    return ", ".join(shown)


@dataclass(frozen=True, slots=True)
class ToolTags:
    """`each`: every tool's tags, in the tools' order; `tags`: every tag with its tool count, in the
    order of the document's top-level `tags`, then the others by name. Cheap to make (no index): search
    mode lists the tags before its index is built."""

    each: tuple[tuple[str, ...], ...]
    tags: tuple[tuple[str, int], ...]

    @classmethod
    def of(cls, tools: Sequence[Tool], document_data: Any) -> ToolTags:
        each = tuple(operation_tags(document_data, tool) for tool in tools)
        counts: Counter[str] = Counter(tag for tags in each for tag in tags)
        described = tag_descriptions(document_data)
        order = [tag for tag in described if tag in counts] + sorted(set(counts) - set(described))
        return cls(each, tuple((tag, counts[tag]) for tag in order))

    def counted(self, only: frozenset[int] | None) -> tuple[tuple[str, int], ...]:
        """The tags with their tool counts, counting only the tools at positions `only` (None: every
        tool); a tag with none of them is left out."""
        if only is None:
            return self.tags
        counts: Counter[str] = Counter(tag for i in only for tag in self.each[i])
        return tuple((tag, counts[tag]) for tag, _ in self.tags if counts[tag])
