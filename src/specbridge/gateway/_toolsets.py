"""Toolsets: one MCP endpoint (/<toolset>/mcp) whose tools are picked from several APIs (`toolsets:`).

A toolset serves its tools renamed, re-titled and re-described (`tools.compose`), and nothing else of
its own: a call of one of them is a call of the picked tool on its API's state, through the same call
service as a call at /<api>/mcp — that API's credentials, approvals, limits, access rules, bindings
and audit line. A client reaches the endpoint when its `apis` names the toolset, and sees (and may call)
only the tools of APIs its `apis` names too, as far as that API's tool rules let it; a tool it may not
use is absent from its listing and answered as an unknown tool. Search mode works over a toolset: its
index is of the toolset's tools, so `search_tools` finds them by their toolset names and their
producers within the toolset. So does code mode (`code_mode`, `_toolset_code`): `search` and
`execute`, each tool a function of a script's `api` whose call is the picked tool's call on its API.
Long calls' `get_call_result` is not offered here (its call ids belong to one API); a call a person
approves is still answered on the agent's repeat of the same call.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Mapping
from dataclasses import dataclass, field
from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext

from .._errors import ErrorCode, SpecbridgeError
from .._logging import log_event
from ..call import CallResult, Lru
from ..codemode import CodeMode
from ..config import ClientConfig, Config, ToolsetConfig, check_toolset_tools
from ..search import SearchIndex, SearchSettings
from ..tools import Composed, Tool, ToolSet, compose, too_big_for_one_context
from ._code import call_code_tool
from ._gateway import ApiState, Gateway, Snapshot
from ._mcp import to_mcp_result, tool_entry
from ._search import (
    CALL_TOOL,
    CALL_TOOL_SCHEMA,
    SEARCH_TOOL,
    SEARCH_TOOL_SCHEMA,
    found,
    search_arguments,
    search_mode_tools,
    search_settings,
    unwrap_call,
    with_producers,
)
from ._server import Answered, ApiServer, _Call, identity_of, view_of
from ._toolset_code import ToolsetReach, reach_key, toolset_code_mode, usable

LISTINGS = 256  # listings kept per toolset: one per client lately seen


@dataclass(frozen=True, slots=True)
class ToolsetState:
    """One toolset as it is served now, made again whenever the config or a member API changes."""

    config: ToolsetConfig
    members: Mapping[str, Composed]  # by the name the toolset serves, in the config's order
    index: SearchIndex | None = None  # search mode over the toolset's tools, or None
    code: CodeMode | None = None  # code mode over them (`_toolset_code`), or None
    listings: Lru[Any, list[types.Tool]] = field(default_factory=lambda: Lru(LISTINGS))

    @property
    def tools(self) -> tuple[Tool, ...]:
        return tuple(member.tool for member in self.members.values())


def build_toolsets(
    config: Config, states: Mapping[str, ApiState], settings: SearchSettings | None = None
) -> dict[str, ToolsetState]:
    """Every toolset of `config` over the API states it picks from (a tool its API does not serve is a
    config error). Builds search indexes: run it off the event loop."""
    built: dict[str, ToolsetState] = {}
    for name, toolset in config.toolsets.items():
        served = {api: states[api].toolset for api in toolset.apis if api in states}
        check_toolset_tools(config, toolset, served)
        members = {member.tool.name: member for member in compose(toolset.tools, served)}
        tools = tuple(member.tool for member in members.values())
        index, code = None, None
        if toolset.code_mode.enabled:  # instead of search mode, as for an API
            code = toolset_code_mode(toolset, members, states, settings)
        elif members and (toolset.search == "on" or (toolset.search == "auto" and _too_big(tools, served))):
            index = SearchIndex.build(tools, None, settings=settings)
        built[name] = ToolsetState(toolset, members, index, code)
    return built


class Toolsets:
    """The toolsets of the snapshot the gateway serves, made again when the snapshot changes (a reload).
    A reload whose toolsets cannot be made (a picked tool its API no longer serves) keeps the previous
    ones serving, and the log says why; at start it stops the start."""

    def __init__(self, gateway: Gateway) -> None:
        self.gateway = gateway
        self._for: Snapshot | None = None
        self._built: dict[str, ToolsetState] = {}

    def _settings(self, config: Config) -> SearchSettings:
        return search_settings(config.search, config.store)

    async def start(self) -> None:
        snapshot = self.gateway.snapshot
        built = await anyio.to_thread.run_sync(
            build_toolsets, snapshot.config, snapshot.states, self._settings(snapshot.config)
        )
        self._for, self._built = snapshot, built
        for name, state in built.items():
            log_event("toolset loaded", toolset=name, tools=len(state.members),
                      search=state.index is not None, code_mode=state.code is not None)  # fmt: skip

    def of(self, snapshot: Snapshot) -> Mapping[str, ToolsetState]:
        if self._for is not snapshot:
            try:
                built = build_toolsets(snapshot.config, snapshot.states, self._settings(snapshot.config))
            except SpecbridgeError as error:
                log_event(
                    "toolsets reload failed; still serving the previous toolsets",
                    level=logging.ERROR,
                    code=str(error.code),
                    reason=error.message,
                )
                built = self._built
            self._for, self._built = snapshot, built
        return self._built


def _too_big(tools: tuple[Tool, ...], served: Mapping[str, ToolSet]) -> bool:
    document = next(iter(served.values())).document
    return too_big_for_one_context(ToolSet(document=document, tools=tools))


class ToolsetServer(ApiServer):
    """The MCP server of one toolset (`self.api` is the toolset's name)."""

    def __init__(self, gateway: Gateway, name: str, toolsets: Toolsets) -> None:
        super().__init__(gateway, name)
        self.toolsets = toolsets

    def _state(
        self, ctx: ServerRequestContext[Any, Any]
    ) -> tuple[ToolsetState, Snapshot, ClientConfig | None]:
        snapshot, client = view_of(ctx, self.gateway)
        found = self.toolsets.of(snapshot).get(self.api)
        return found if found is not None else _GONE, snapshot, client

    def _usable(
        self, snapshot: Snapshot, client: ClientConfig | None, member: Composed, identity: Any
    ) -> bool:
        """Whether this caller may use this tool on its own API: the API is its, and its rules allow it."""
        return usable(snapshot, client, member, identity)

    async def _changed(self, api: str) -> None:
        toolset = self.toolsets.of(self.gateway.snapshot).get(self.api)
        if toolset is not None and api in toolset.config.apis:
            await ApiServer._changed(self, self.api)

    async def list_tools(
        self, ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        toolset, snapshot, client = self._state(ctx)
        identity = identity_of(ctx)
        key = reach_key(client, identity)  # what the rules read of a caller
        listed = toolset.listings.get(key)
        if listed is None:
            used = [m for m in toolset.members.values() if self._usable(snapshot, client, m, identity)]
            if toolset.code is not None:
                entries = toolset.code.tools(ToolsetReach(toolset.members, snapshot, client, identity))
            elif toolset.index is not None:
                title = toolset.config.title or self.api
                entries = search_mode_tools(title, len(used))
            else:
                entries = [self._entry(snapshot, client, member) for member in used]
            listed = [types.Tool.model_validate(entry) for entry in entries]
            toolset.listings.put(key, listed)
        return types.ListToolsResult(tools=listed)

    def _entry(self, snapshot: Snapshot, client: ClientConfig | None, member: Composed) -> dict[str, Any]:
        """The tool as this client sees it on its own API (its bindings left out), under the toolset's
        name, title and description."""
        state = snapshot.state(member.api)
        bindings = client.bindings.get(member.api) if client is not None else None
        entry = tool_entry(state.caller, member.source, bindings)
        entry["name"], entry["description"] = member.tool.name, member.tool.description
        if member.tool.title:
            entry["title"] = member.tool.title
            entry["annotations"] = {**entry.get("annotations", {}), "title": member.tool.title}
        return entry

    def input_schema_for_headers(self, name: str) -> Mapping[str, Any] | None:
        toolset = self.toolsets.of(self.gateway.snapshot).get(self.api)
        if toolset is None:
            return None
        if toolset.code is not None and toolset.code.owns(name):
            return toolset.code.input_schema(name)
        if toolset.index is not None and name in (SEARCH_TOOL, CALL_TOOL):
            return SEARCH_TOOL_SCHEMA if name == SEARCH_TOOL else CALL_TOOL_SCHEMA
        member = toolset.members.get(name)
        return member.source.input_schema if member is not None else None

    async def call_tool(
        self, ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        toolset, snapshot, client = self._state(ctx)
        identity = identity_of(ctx)
        name, arguments = params.name, params.arguments or {}
        call = _Call(ctx, params.input_responses, client, identity)

        def invoke(inner: str, inner_arguments: Mapping[str, Any], unknown: Any) -> Awaitable[Answered]:
            member = toolset.members.get(inner)
            if member is None or not self._usable(snapshot, client, member, identity):
                return _answered(unknown(inner))
            state = snapshot.state(member.api)  # the API's own state: its every rule
            return self._invoke(state, call, member.source.name, inner_arguments, lambda _: unknown(inner))

        if toolset.code is not None and toolset.code.owns(name):  # code mode: `search`, `execute`
            members = toolset.members
            reach = ToolsetReach(members, snapshot, client, identity)

            def schema_of(tool: Tool) -> Mapping[str, Any]:
                schema: Mapping[str, Any] = self._entry(snapshot, client, members[tool.name])["inputSchema"]
                return schema

            return await call_code_tool(
                self.gateway, toolset.code, reach, schema_of, client, identity, name, arguments
            )
        if toolset.index is not None and name == SEARCH_TOOL:
            return to_mcp_result(self._search(toolset, snapshot, client, identity, arguments))
        if toolset.index is not None and name == CALL_TOOL:
            unwrapped = unwrap_call(arguments)
            if isinstance(unwrapped, CallResult):
                return to_mcp_result(unwrapped)
            return await invoke(*unwrapped, self._search_unknown)
        return await invoke(name, arguments, self._unknown)

    def _search_unknown(self, inner: str) -> Answered:
        self.gateway.metrics.error(self.api, str(ErrorCode.TOOL_UNKNOWN))
        text = f"no tool named {inner[:128]!r}; use {SEARCH_TOOL} to find one"
        return to_mcp_result(CallResult(text, is_error=True, code=ErrorCode.TOOL_UNKNOWN))

    def _search(
        self,
        toolset: ToolsetState,
        snapshot: Snapshot,
        client: ClientConfig | None,
        identity: Any,
        arguments: Mapping[str, Any],
    ) -> CallResult:
        parsed = search_arguments(arguments)
        if isinstance(parsed, CallResult):
            return parsed
        query, limit, tag = parsed
        assert toolset.index is not None
        self.gateway.metrics.call(self.api, SEARCH_TOOL)
        members = list(toolset.members.values())
        only = frozenset(i for i, m in enumerate(members) if self._usable(snapshot, client, m, identity))
        answer = toolset.index.search(query, limit, tag, only)
        names = frozenset(members[i].tool.name for i in only)
        entries = [
            with_producers(
                self._entry(snapshot, client, toolset.members[tool.name]), tool, answer, names.__contains__
            )
            for tool in answer.tools
        ]
        return found(entries, answer, ())


async def _answered(result: Answered) -> Answered:
    return result


_GONE = ToolsetState(ToolsetConfig("", ()), {})  # a toolset a reload took out: served empty until a restart
