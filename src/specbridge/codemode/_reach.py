"""What one caller reaches of a code mode's tools, and where a script's call of each goes: `Reach`.

A code mode serves tools under its own names (an API's: the API's tools; a toolset's: the tools it
picks from several APIs, under the toolset's names). For one caller, `target(tool)` says where a call
of a served tool goes (the API's config and caller, and the tool as that API serves it), or None when
this caller may not use it: then the tool is absent from its listing, its search and its `api`
module, and a script calling it is told what it is told of a name `api` has not.

    ApiReach        one API's code mode: its own tools, under the caller's tool rules there
    (gateway/)      a toolset's: each tool on its own API, as far as the client and that API's rules
                    let the caller
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Protocol

from ..call import Caller
from ..config import ApiConfig
from ..service import ToolRules
from ..tools import Tool


@dataclass(frozen=True, slots=True)
class Target:
    """Where a call goes: `tool` as API `api` serves it, sent by that API's `caller`."""

    api: ApiConfig
    caller: Caller
    tool: Tool


class Reach(Protocol):
    """One caller's view of a code mode's tools."""

    @property
    def key(self) -> Hashable:
        """Equal for two callers who reach the same tools (the code mode keeps their listing by it)."""
        ...

    @property
    def everything(self) -> bool:
        """Whether this caller reaches every tool (no rule narrows it)."""
        ...

    def target(self, tool: Tool) -> Target | None:
        """Where a call of `tool` (a served tool) goes, or None when this caller may not use it."""
        ...


@dataclass(frozen=True, slots=True)
class ApiReach:
    """One API's code mode: its tools as they are, under the caller's rules on the API."""

    api: ApiConfig
    caller: Caller
    rules: ToolRules

    @property
    def key(self) -> Hashable:
        return self.rules

    @property
    def everything(self) -> bool:
        return self.rules.everything

    def target(self, tool: Tool) -> Target | None:
        return Target(self.api, self.caller, tool) if self.rules.allows(tool) else None
