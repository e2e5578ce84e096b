"""What the gateway serves at one moment: a `Snapshot` of the config and one `ApiState` per API, never
changed, only replaced whole by a reload (`_gateway`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..call import Caller, Lru
from ..codemode import CodeMode
from ..config import ApiConfig, ClientConfig, Config
from ..tools import ToolSet
from ._search import SearchMode

OUTPUT_VALIDATORS = 256  # compiled output schemas kept per API, the least recently used dropped
LISTINGS = 256  # listings kept per API: one per client and set of token scopes seen lately


@dataclass(frozen=True, slots=True)
class ApiState:
    """One API as it is served now; never changed, only replaced. Its caches hold what follows from
    it: `listings` each caller's `tools/list` entries (by its `service.ToolRules`, `_listing`),
    `validators` output-schema validators by tool name and root type. `search`: search mode, or None."""

    api: ApiConfig
    toolset: ToolSet
    caller: Caller
    spec_digest: str
    search: SearchMode | None = None
    code: CodeMode | None = None  # code mode (codemode/): a search and a script instead of the tools
    listings: Lru[Any, tuple[list[Any], list[int]]] = field(default_factory=lambda: Lru(LISTINGS))
    validators: Lru[Any, Any] = field(default_factory=lambda: Lru(OUTPUT_VALIDATORS))  # by tool name, root


@dataclass(frozen=True, slots=True)
class Snapshot:
    """What the gateway serves at one moment: config, clients, each API's state. A reload makes a new one."""

    config: Config
    states: Mapping[str, ApiState]

    @property
    def clients(self) -> Mapping[str, ClientConfig]:
        return self.config.clients

    def state(self, api: str) -> ApiState:
        return self.states[api]
