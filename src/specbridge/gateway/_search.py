"""Search mode: for APIs too big for one context, `tools/list` offers two tools instead of hundreds.

`search_tools(query, tag?)` ranks the API's tools (`specbridge.search`: BM25 over rich tool documents
with stems and synonyms, fused with an embedding model when the `semantic` extra is installed) and
returns the few best with their input schemas, plus the API's tags to narrow by; `call_tool(name,
arguments)` calls one of them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .._errors import ArgumentError, ErrorCode
from .._json import dumps
from ..call import CallResult, Checker
from ..config import SearchIndexConfig
from ..search import SearchAnswer, SearchIndex, SearchSettings
from ..tools import ToolSet

SEARCH_TOOL = "search_tools"
CALL_TOOL = "call_tool"
DEFAULT_RESULTS = 5
MAX_RESULTS = 20
TAGS_IN_DESCRIPTION = 600  # characters of tag names the search tool's description may carry
WEAK_NOTE = (
    "No tool matches these words well; these are only the nearest. Try other words, "
    "or browse one of the tags."
)

SEARCH_TOOL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {
            "type": "string",
            "minLength": 1,
            "maxLength": 500,
            "description": "What you want to do, in your own words.",
        },
        "tag": {
            "type": "string",
            "minLength": 1,
            "maxLength": 200,
            "description": "Only tools of this tag (the API's sections; each answer lists them).",
        },
        "limit": {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_RESULTS,
            "default": DEFAULT_RESULTS,
            "description": "How many tools to return.",
        },
    },
    "additionalProperties": False,
}
CALL_TOOL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "minLength": 1, "description": "A tool name from search_tools."},
        "arguments": {"type": "object", "description": "The tool's arguments, as its inputSchema says."},
    },
    "required": ["name"],
    "additionalProperties": False,
}


_SEARCH_CHECK = Checker(SEARCH_TOOL_SCHEMA)
_CALL_CHECK = Checker(CALL_TOOL_SCHEMA)


def search_settings(config: SearchIndexConfig) -> SearchSettings:
    """The config's `search:` block as the index takes it."""
    return SearchSettings(
        semantic=config.semantic,
        model_dir=None if config.model is None else Path(config.model),
        cache_dir=None if config.cache is None else ("" if config.cache == "" else Path(config.cache)),
    )


def build_index(toolset: ToolSet, settings: SearchSettings | None = None) -> SearchIndex:
    """The search index of one API's tools (slow the first time with the semantic extra: run it off
    the event loop)."""
    return SearchIndex.build(toolset.tools, toolset.document.data, settings=settings)


def _tag_list(tags: Sequence[tuple[str, int]]) -> str:
    shown: list[str] = []
    size = 0
    for name, _ in tags:
        size += len(name) + 2
        if size > TAGS_IN_DESCRIPTION:
            shown.append("…")
            break
        shown.append(name)
    return ", ".join(shown)


def search_mode_tools(
    title: str, tool_count: int, tags: Sequence[tuple[str, int]] = ()
) -> list[dict[str, Any]]:
    """The two MCP tools a client sees in search mode, instead of the API's `tool_count` tools.
    `title` is the document's own (`info.title`), so the model knows which API it is searching."""
    title = " ".join(title.split())[:100] or "this"
    sections = f" Its tags: {_tag_list(tags)}." if tags else ""
    return [
        {
            "name": SEARCH_TOOL,
            "title": f"Search the tools of {title}",
            "description": (
                f"{title} has {tool_count} operations, too many to list. Describe what you want to do "
                "and get the few best-matching tools, each with its input schema; then call one with "
                f"{CALL_TOOL}. Search again with other words if none fits, or give `tag` to look only "
                f"in one part of the API (with no query: list that tag's tools).{sections}"
            ),
            "inputSchema": SEARCH_TOOL_SCHEMA,
            "annotations": {
                "title": f"Search the tools of {title}",
                "readOnlyHint": True,
                "destructiveHint": False,
                "idempotentHint": True,
                "openWorldHint": False,
            },
        },
        {
            "name": CALL_TOOL,
            "title": f"Call one of the tools of {title}",
            "description": (
                f"Call a tool that {SEARCH_TOOL} returned: its name, and its arguments as its input schema "
                "says. The call is checked and sent like any other; it may change data."
            ),
            "inputSchema": CALL_TOOL_SCHEMA,
            "annotations": {
                "title": f"Call one of the tools of {title}",
                "readOnlyHint": False,
                "destructiveHint": True,
                "idempotentHint": False,
                "openWorldHint": True,
            },
        },
    ]


def _problem(checker: Checker, arguments: Mapping[str, Any]) -> CallResult | None:
    try:
        checker.check(arguments)
    except ArgumentError as error:
        return CallResult(error.message, is_error=True, code=error.code)
    return None


def search_arguments(arguments: Mapping[str, Any]) -> tuple[str, int, str | None] | CallResult:
    """`query`, `limit` and `tag` of a search_tools call, or the error result that names what is wrong."""
    problem = _problem(_SEARCH_CHECK, arguments)
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


def unwrap_call(arguments: Mapping[str, Any]) -> tuple[str, dict[str, Any]] | CallResult:
    """The inner tool name and arguments of a call_tool call, or the error result saying what is wrong."""
    problem = _problem(_CALL_CHECK, arguments)
    if problem is not None:
        return problem
    return str(arguments["name"]), dict(arguments.get("arguments") or {})
