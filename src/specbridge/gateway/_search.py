"""Search mode: for APIs too big for one context, `tools/list` offers two tools instead of hundreds.

`search_tools(query, tag?)` ranks the API's tools (`specbridge.search`: BM25 over rich tool documents
with stems and synonyms, fused with an embedding model when the `semantic` extra is installed) and
returns the few best with their input schemas, plus the API's tags to narrow by; `call_tool(name,
arguments)` calls one of them.

`SearchMode` is all of it for one API: its index, its listing (the two tools), their input schemas and
their calls. The MCP server asks it whether a name is one of its tools and hands such a call over, with
the way to make an ordinary call (`invoke`) for `call_tool` to use, and the caller's `ToolRules`: a
tool the caller may not use is never found, and its tags and the tool count in the listing are the
caller's own. Calling such a tool through `call_tool` is refused by the call service, and answered here
exactly as a name no tool has (`unknown`).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import anyio
import mcp_types as types

from .._errors import ErrorCode
from .._json import dumps
from ..call import Caller, CallResult, Checker, argument_problem
from ..config import SearchIndexConfig
from ..search import SearchAnswer, SearchIndex, SearchSettings, ToolTags
from ..service import Allowed, ToolRules
from ..store import store_folder
from ..tools import Tool, ToolSet
from ._mcp import to_mcp_result, tool_entry
from ._metrics import Metrics
from ._search_tools import CALL_TOOL as CALL_TOOL
from ._search_tools import CALL_TOOL_SCHEMA as CALL_TOOL_SCHEMA
from ._search_tools import DEFAULT_RESULTS
from ._search_tools import SEARCH_TOOL as SEARCH_TOOL
from ._search_tools import SEARCH_TOOL_SCHEMA as SEARCH_TOOL_SCHEMA
from ._search_tools import search_mode_tools as search_mode_tools

Invoke = Callable[[str, Mapping[str, Any]], Awaitable[types.CallToolResult | types.InputRequiredResult]]
RULES_KEPT = 256  # callers' tool rules whose allowed positions are kept
WEAK_NOTE = (
    "No tool matches these words well; these are only the nearest. Try other words, "
    "or browse one of the tags."
)

_SEARCH_CHECK = Checker(SEARCH_TOOL_SCHEMA)
_CALL_CHECK = Checker(CALL_TOOL_SCHEMA)


def search_settings(config: SearchIndexConfig, store: str | None = None) -> SearchSettings:
    """The config's `search:` block as the index takes it. Tool vectors are kept where `cache` says, else
    beside a SQLite `store` (a container that keeps its state volume keeps them too), else in the
    user's cache folder."""
    cache: Path | Literal[""] | None
    if config.cache is not None:
        cache = "" if config.cache == "" else Path(config.cache)
    else:
        folder = store_folder(store) if store is not None else None
        cache = folder / "embeddings" if folder is not None else None
    return SearchSettings(
        semantic=config.semantic,
        model_dir=None if config.model is None else Path(config.model),
        cache_dir=cache,
    )


def build_index(toolset: ToolSet, settings: SearchSettings | None = None) -> SearchIndex:
    """The search index of one API's tools (slow the first time with the semantic extra: run it off
    the event loop)."""
    return SearchIndex.build(toolset.tools, toolset.document.data, settings=settings)


def search_arguments(arguments: Mapping[str, Any]) -> tuple[str, int, str | None] | CallResult:
    """`query`, `limit` and `tag` of a search_tools call, or the error result that names what is wrong."""
    problem = argument_problem(_SEARCH_CHECK, arguments)
    if problem is not None:
        return problem
    query = str(arguments.get("query", ""))
    tag = arguments.get("tag")
    if "query" not in arguments and tag is None:
        return CallResult(
            "invalid arguments: query: is missing; say what you want to do, or give a tag to list its tools",
            is_error=True,
            code=ErrorCode.ARGUMENTS_INVALID,
        )
    return query, int(arguments.get("limit", DEFAULT_RESULTS)), str(tag) if tag is not None else None


def found(
    tools: Sequence[dict[str, Any]], answer: SearchAnswer, tags: Sequence[tuple[str, int]]
) -> CallResult:
    """search_tools' answer: the tools' definitions, a note when the match is weak or the tag unknown,
    and the API's tags with their tool counts; as text and as structured content."""
    structured: dict[str, Any] = {"tools": list(tools)}
    notes = []
    if answer.unknown_tag is not None:
        notes.append(f"No tag is named {answer.unknown_tag[:200]!r}; every tool was searched.")
    if answer.weak:
        notes.append(WEAK_NOTE)
    if notes:
        structured["note"] = " ".join(notes)
    if answer.tag is not None:
        structured["tag"] = answer.tag
    if tags:
        structured["tags"] = {name: count for name, count in tags}
    return CallResult(dumps(structured), structured=structured)


def with_producers(
    entry: dict[str, Any], tool: Tool, answer: SearchAnswer, usable: Callable[[str], bool]
) -> dict[str, Any]:
    """A hit as search_tools lists it: for each id it takes, the tools whose answers give it
    (`producers`, those the caller may use), and when it was returned as one of those for another hit,
    which (`found_for`)."""
    producers = {
        entry_.argument: names
        for entry_ in tool.provenance
        if (names := [p.tool for p in entry_.producers if usable(p.tool)])
    }
    if producers:
        entry["producers"] = producers
    if tool.name in answer.added_for:
        entry["found_for"] = answer.added_for[tool.name]
    return entry


def unwrap_call(arguments: Mapping[str, Any]) -> tuple[str, dict[str, Any]] | CallResult:
    """The inner tool name and arguments of a call_tool call, or the error result saying what is wrong."""
    problem = argument_problem(_CALL_CHECK, arguments)
    if problem is not None:
        return problem
    return str(arguments["name"]), dict(arguments.get("arguments") or {})


class SearchMode:
    """Search mode of one API: the index of its tools, the two tools a client lists instead of them,
    and what a call of either does. Made with the API's state, replaced with it on reload. The index
    is built by `build` when a search first needs it (or by `warm`, in the background, once the first
    listing is answered), not when the gateway starts: the listing needs only the tags."""

    def __init__(
        self,
        api: str,
        toolset: ToolSet,
        caller: Caller,
        build: Callable[[], SearchIndex],
        metrics: Metrics,
    ) -> None:
        self.api = api
        self.toolset = toolset
        self.caller = caller
        self.metrics = metrics
        self._build = build
        self._index: SearchIndex | None = None
        self._building = threading.Lock()
        self._warming: threading.Thread | None = None
        self._tags: ToolTags | None = None
        self._allowed = Allowed(toolset.tools, RULES_KEPT)

    @property
    def ready(self) -> bool:
        """Whether the index is built."""
        return self._index is not None

    def built(self) -> SearchIndex:
        """The index, built now (in the calling thread) unless it was before."""
        with self._building:
            if self._index is None:
                self._index = self._build()
            return self._index

    async def index(self) -> SearchIndex:
        """The index; built off the event loop the first time (with the semantic extra, the model is
        loaded and every tool encoded or read from its cache)."""
        if self._index is not None:
            return self._index
        return await anyio.to_thread.run_sync(self.built)

    def warm(self) -> None:
        """Start building the index in the background, once (a failure is met again by the search)."""
        if self._index is not None or self._warming is not None:
            return

        def build() -> None:
            with contextlib.suppress(Exception):
                self.built()

        self._warming = threading.Thread(target=build, name=f"search-index-{self.api}", daemon=True)
        self._warming.start()

    def tags(self) -> ToolTags:
        if self._tags is None:
            self._tags = ToolTags.of(self.toolset.tools, self.toolset.document.data)
        return self._tags

    def positions(self, rules: ToolRules) -> frozenset[int] | None:
        """The index positions of the tools a caller with `rules` may use (None: every tool)."""
        return self._allowed.positions(rules)

    def tools(self, rules: ToolRules) -> list[dict[str, Any]]:
        """The listing: `search_tools` and `call_tool`, telling of the tools and tags this caller may use."""
        only = self.positions(rules)
        count = len(self.toolset.tools) if only is None else len(only)
        return search_mode_tools(self.toolset.document.title, count, self.tags().counted(only))

    def unknown(self, inner: str) -> types.CallToolResult:
        """`call_tool` of a name no tool has (or one the caller may not use: the same answer)."""
        self.metrics.error(self.api, str(ErrorCode.TOOL_UNKNOWN))
        return to_mcp_result(
            CallResult(
                f"no tool named {inner[:128]!r}; use {SEARCH_TOOL} to find one",
                is_error=True,
                code=ErrorCode.TOOL_UNKNOWN,
            )
        )

    def owns(self, name: str) -> bool:
        return name in (SEARCH_TOOL, CALL_TOOL)

    def input_schema(self, name: str) -> Mapping[str, Any] | None:
        if name == SEARCH_TOOL:
            return SEARCH_TOOL_SCHEMA
        return CALL_TOOL_SCHEMA if name == CALL_TOOL else None

    async def call(
        self,
        name: str,
        arguments: Mapping[str, Any],
        client_bindings: Mapping[str, Any] | None,
        invoke: Invoke,
        rules: ToolRules,
    ) -> types.CallToolResult | types.InputRequiredResult:
        """A call of one of the two tools (`owns(name)`). `call_tool` of a known tool goes through
        `invoke`, the ordinary call with every check, deadline and approval (and the caller's tool
        access: `invoke` answers a refused tool with `unknown`); of an unknown one it is an error
        result (not -32602: the model can act on it by searching again)."""
        if name == SEARCH_TOOL:
            return to_mcp_result(await self._search(arguments, client_bindings, rules))
        unwrapped = unwrap_call(arguments)
        if isinstance(unwrapped, CallResult):
            return to_mcp_result(unwrapped)
        inner, inner_arguments = unwrapped
        if self.toolset.get(inner) is None:
            return self.unknown(inner)
        return await invoke(inner, inner_arguments)

    async def _search(
        self, arguments: Mapping[str, Any], client_bindings: Mapping[str, Any] | None, rules: ToolRules
    ) -> CallResult:
        parsed = search_arguments(arguments)
        if isinstance(parsed, CallResult):
            return parsed
        query, limit, tag = parsed
        self.metrics.call(self.api, SEARCH_TOOL)
        index, only = await self.index(), self.positions(rules)
        if index.semantic:  # encoding the query takes milliseconds of CPU: not on the event loop
            answer = await anyio.to_thread.run_sync(lambda: index.search(query, limit, tag, only))
        else:
            answer = index.search(query, limit, tag, only)
        names = None if only is None else frozenset(self.toolset.tools[i].name for i in only)
        usable = (lambda name: True) if names is None else names.__contains__
        entries = [
            with_producers(tool_entry(self.caller, tool, client_bindings), tool, answer, usable)
            for tool in answer.tools
        ]
        return found(entries, answer, index.tags_of(only))
