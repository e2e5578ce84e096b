"""Search mode: for APIs too big for one context, `tools/list` offers two tools instead of hundreds.

`search_tools(query)` ranks the API's tools with BM25 over their names, descriptions and argument names
and returns the few best with their input schemas; `call_tool(name, arguments)` calls one of them.

The index is hand-written: a few hundred short documents need no sparse-matrix library, and building
it for GitHub's 719 tools takes a few milliseconds.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .._errors import ArgumentError
from .._json import dumps
from ..call import CallResult, Checker
from ..tools import Tool

SEARCH_TOOL = "search_tools"
CALL_TOOL = "call_tool"
DEFAULT_RESULTS = 5
MAX_RESULTS = 20
NAME_WEIGHT = 3  # a word of the name, title or path counts as much as three of the description
_K1 = 1.2
_B = 0.75
_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "in",
        "is",
        "it",
        "of",
        "on",
        "or",
        "that",
        "the",
        "this",
        "to",
        "with",
        "returns",
        "errors",
    ]
)

SEARCH_TOOL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "minLength": 1, "maxLength": 500, "description": "What you want to do."},
        "limit": {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_RESULTS,
            "default": DEFAULT_RESULTS,
            "description": "How many tools to return.",
        },
    },
    "required": ["query"],
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


def words(text: str) -> list[str]:
    """`listPullRequests` -> list, pull, request; `pull_requests/{id}` -> pull, request, id."""
    found = []
    for word in _WORDS.findall(text):
        lowered = word.lower()
        if lowered in _STOP_WORDS:
            continue
        if len(lowered) > 3 and lowered.endswith("s") and not lowered.endswith("ss"):
            lowered = lowered[:-1]  # the one stemming step that matters for API words
        found.append(lowered)
    return found


# What people say for what each method does, so "create a customer" finds `PostCustomers`.
_METHOD_WORDS = {
    "GET": "get list retrieve read fetch show find",
    "HEAD": "check exist",
    "POST": "create add new make send submit",
    "PUT": "update replace set edit",
    "PATCH": "update modify change edit",
    "DELETE": "delete remove cancel destroy",
}


def _document(tool: Tool) -> tuple[Counter[str], int]:
    """The tool's terms, and its length for BM25. Argument names match but do not count towards the
    length: an operation with thirty options is not a worse match for its own name."""
    terms: Counter[str] = Counter()
    # Name, title and path repeat each other (`PostCustomersCustomerCards`, /v1/customers/{customer}/cards):
    # each word of theirs counts once, so a long name does not outrank a short exact one.
    for word in set(words(tool.name) + words(tool.title or "") + words(tool.operation.path)):
        terms[word] += NAME_WEIGHT
    terms.update(_METHOD_WORDS.get(tool.operation.method, "").split())
    terms.update(words(tool.description))
    length = sum(terms.values())
    for argument in tool.arguments:
        terms.update(words(argument.name))
    return terms, length


@dataclass(frozen=True, slots=True)
class ToolIndex:
    """BM25 over the tools of one API (for one client: bound arguments are the caller's business)."""

    tools: tuple[Tool, ...]
    documents: tuple[Counter[str], ...]
    lengths: tuple[int, ...]
    average_length: float
    document_frequency: dict[str, int]

    @classmethod
    def build(cls, tools: Sequence[Tool]) -> ToolIndex:
        built = [_document(tool) for tool in tools]
        documents = tuple(terms for terms, _ in built)
        lengths = tuple(length for _, length in built)
        frequency: Counter[str] = Counter()
        for document in documents:
            frequency.update(document.keys())
        average = sum(lengths) / len(lengths) if lengths else 0.0
        return cls(tuple(tools), documents, lengths, average, dict(frequency))

    def search(self, query: str, limit: int = DEFAULT_RESULTS) -> list[Tool]:
        """The best `limit` tools for `query`, best first; ties in name order; none when nothing matches."""
        terms = set(words(query)) or {query.strip().lower()}
        total = len(self.tools)
        scored: list[tuple[float, str, int]] = []
        for position, (document, length) in enumerate(zip(self.documents, self.lengths, strict=True)):
            score = 0.0
            for term in terms:
                count = document.get(term)
                if not count:
                    continue
                frequency = self.document_frequency[term]
                idf = math.log(1 + (total - frequency + 0.5) / (frequency + 0.5))
                norm = _K1 * (1 - _B + _B * length / self.average_length) if self.average_length else _K1
                score += idf * count * (_K1 + 1) / (count + norm)
            if score > 0:
                scored.append((-score, self.tools[position].name, position))
        scored.sort()
        return [self.tools[position] for _, _, position in scored[:limit]]


def search_mode_tools(api: str, tool_count: int) -> list[dict[str, Any]]:
    """The two MCP tools a client sees in search mode, instead of the API's `tool_count` tools."""
    return [
        {
            "name": SEARCH_TOOL,
            "title": f"Search the {api} API's tools",
            "description": (
                f"The {api} API has {tool_count} operations, too many to list. Describe what you want to do "
                "and get the few best-matching tools, each with its input schema; then call one with "
                f"{CALL_TOOL}. Search again with other words if none fits."
            ),
            "inputSchema": SEARCH_TOOL_SCHEMA,
            "annotations": {
                "title": f"Search the {api} API's tools",
                "readOnlyHint": True,
                "destructiveHint": False,
                "idempotentHint": True,
                "openWorldHint": False,
            },
        },
        {
            "name": CALL_TOOL,
            "title": f"Call one of the {api} API's tools",
            "description": (
                f"Call a tool that {SEARCH_TOOL} returned: its name, and its arguments as its input schema "
                "says. The call is checked and sent like any other; it may change data."
            ),
            "inputSchema": CALL_TOOL_SCHEMA,
            "annotations": {
                "title": f"Call one of the {api} API's tools",
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


def search_arguments(arguments: Mapping[str, Any]) -> tuple[str, int] | CallResult:
    """`query` and `limit` of a search_tools call, or the error result that names what is wrong."""
    problem = _problem(_SEARCH_CHECK, arguments)
    if problem is not None:
        return problem
    return str(arguments["query"]), int(arguments.get("limit", DEFAULT_RESULTS))


def found(tools: Sequence[dict[str, Any]]) -> CallResult:
    """search_tools' answer: the matching tools' definitions, as text and as structured content."""
    if not tools:
        return CallResult(
            "No tool matches; try other words for what you want to do.", structured={"tools": []}
        )
    return CallResult(dumps({"tools": list(tools)}, indent=True), structured={"tools": list(tools)})


def unwrap_call(arguments: Mapping[str, Any]) -> tuple[str, dict[str, Any]] | CallResult:
    """The inner tool name and arguments of a call_tool call, or the error result saying what is wrong."""
    problem = _problem(_CALL_CHECK, arguments)
    if problem is not None:
        return problem
    return str(arguments["name"]), dict(arguments.get("arguments") or {})
