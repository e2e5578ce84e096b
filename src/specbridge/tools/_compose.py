"""Tools of several APIs served as one list (a toolset): each picked tool renamed, re-titled or
re-described as asked, its lines of where its ids come from rewritten for the names the list serves
(a producer the list does not serve is not named), and the approval note kept: a person still approves
what the API's settings say. The picked tool itself is kept beside it: a call is a call of that tool
of that API, with every rule of the API's."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from ._describe import APPROVAL_NOTE, with_approval_note
from ._model import Provenance, Tool, ToolSet
from ._naming import portable_name
from ._provenance_note import provenance_note


class Pick(Protocol):
    """One tool of a toolset as its config says it (config's `ToolsetTool`)."""

    @property
    def api(self) -> str: ...
    @property
    def tool(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def title(self) -> str | None: ...
    @property
    def description(self) -> str | None: ...


@dataclass(frozen=True, slots=True)
class Composed:
    api: str
    source: Tool  # the tool as its API serves it: what a call runs
    tool: Tool  # as the toolset serves it


def compose(picks: Sequence[Pick], served: Mapping[str, ToolSet]) -> tuple[Composed, ...]:
    """The picked tools (those their API serves; the config's check names the others) as served."""
    names = {(pick.api, pick.tool): pick.name for pick in picks}
    found: list[Composed] = []
    for pick in picks:
        toolset = served.get(pick.api)
        source = toolset.get(pick.tool) if toolset is not None else None
        if source is None:
            continue
        provenance = tuple(_renamed(entry, pick.api, names) for entry in source.provenance)
        note = provenance_note(provenance)
        text = pick.description or source.plain_description.removesuffix(APPROVAL_NOTE).rstrip()
        description = f"{text}\n\n{note}" if text and note else text or note
        if source.description.endswith(APPROVAL_NOTE):
            description = with_approval_note(description)
        tool = replace(
            source,
            name=pick.name,
            portable_name=portable_name(pick.name),
            title=pick.title or source.title,
            description=description,
            provenance=provenance,
            provenance_note=note,
        )
        found.append(Composed(pick.api, source, tool))
    return tuple(found)


def _renamed(entry: Provenance, api: str, names: Mapping[tuple[str, str], str]) -> Provenance:
    producers = tuple(
        replace(producer, tool=names[(api, producer.tool)])
        for producer in entry.producers
        if (api, producer.tool) in names
    )
    return replace(entry, producers=producers)
