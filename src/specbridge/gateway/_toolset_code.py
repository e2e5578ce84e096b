"""Code mode over a toolset (`toolsets.<name>.code_mode`): `search` and `execute` at /<toolset>/mcp,
each tool of the toolset a function of `api` under its toolset name (codemode/).

A script's call of one is a call of the picked tool on its own API's state, through the call service
as a direct call at the toolset is (`_toolsets`): that API's credential, approvals, limits, access
rules and audit line. A caller reaches a tool when its client's `apis` names the tool's API and that
API's tool rules allow it (`usable`); any other is absent from its listing, its search and its `api`
module, and a script calling it hears what it hears of a name `api` has not. A paused script is kept
under the toolset's name (no API has it), as long as the longest `approvals.expire` of its APIs; what a
script hands back is shaped by the smallest `answers.max_tokens` of its APIs.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass

from ..access import Identity
from ..codemode import CodeMode, Target
from ..config import AnswersConfig, ApprovalsConfig, ClientConfig, ToolsetConfig
from ..search import SearchIndex, SearchSettings
from ..tools import Composed, Tool
from ._gateway import ApiState, Snapshot
from ._listing import rules_of
from ._modes import need_sandbox


def usable(
    snapshot: Snapshot, client: ClientConfig | None, member: Composed, identity: Identity | None
) -> bool:
    """Whether this caller may use this tool on its own API: the API is its, and its rules allow it."""
    if client is not None and member.api not in client.apis:
        return False
    state = snapshot.state(member.api)
    return rules_of(state, client, identity).allows(member.source)


def reach_key(client: ClientConfig | None, identity: Identity | None) -> Hashable:
    """What a toolset's listing for this caller depends on (within one snapshot): its client, its scopes."""
    token = identity.token if identity is not None else None
    return (client.id if client is not None else None, token.scopes if token is not None else None)


@dataclass(frozen=True, slots=True)
class ToolsetReach:
    """What one caller reaches of a toolset in code mode: each tool on its own API, if usable."""

    members: Mapping[str, Composed]  # by the toolset's names
    snapshot: Snapshot
    client: ClientConfig | None
    identity: Identity | None

    @property
    def key(self) -> Hashable:
        return reach_key(self.client, self.identity)

    @property
    def everything(self) -> bool:
        return False  # whether it does depends on each API's rules: worked out once per key

    def target(self, tool: Tool) -> Target | None:
        member = self.members.get(tool.name)
        if member is None or not usable(self.snapshot, self.client, member, self.identity):
            return None
        state = self.snapshot.state(member.api)  # the API's own state: its every rule
        return Target(state.api, state.caller, member.source)


def toolset_code_mode(
    toolset: ToolsetConfig,
    members: Mapping[str, Composed],
    states: Mapping[str, ApiState],
    settings: SearchSettings | None,
) -> CodeMode:
    """The code mode of a toolset whose `code_mode` is on, over its tools (builds their index: run it
    off the event loop)."""
    need_sandbox(f"toolsets.{toolset.name}.code_mode")
    tools = tuple(member.tool for member in members.values())
    apis = [states[api].api for api in toolset.apis if api in states]
    return CodeMode(
        toolset.name,
        toolset.title or toolset.name,
        tools,
        SearchIndex.build(tools, None, settings=settings),
        toolset.code_mode,
        keep=max((api.approvals.expire for api in apis), default=ApprovalsConfig().expire),
        max_tokens=min((api.answers.max_tokens for api in apis), default=AnswersConfig().max_tokens),
    )
