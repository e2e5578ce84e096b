"""The two tools a model is handed for an API in code mode, instead of one per operation: `search` (the
operations as Python function signatures, ranked as search mode ranks) and `execute` (a short Python
script in the sandbox, each operation a function of the module `api`). Plain data, free of the sandbox
and of MCP: `specbridge tools --code-mode` prints them, the gateway lists them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from ..config import CodeModeConfig
from ..search import tag_list
from ..tools import ToolSet

SEARCH = "search"
EXECUTE = "execute"
NAMES = (SEARCH, EXECUTE)
DEFAULT_RESULTS = 5
MAX_RESULTS = 20
MAX_SCRIPT = 100_000  # characters of one script
SCRIPT_ID = 64  # characters of a script id, at most

SEARCH_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {
            "type": "string",
            "minLength": 1,
            "maxLength": 500,
            "description": "What the script should do: the action and what it acts on, in the API's words where "
            "you know them.",
        },
        "tag": {
            "type": "string",
            "minLength": 1,
            "maxLength": 200,
            "description": "Only operations of this tag (with no query: all of them).",
        },
        "limit": {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_RESULTS,
            "default": DEFAULT_RESULTS,
            "description": "How many functions to return.",
        },
    },
    "additionalProperties": False,
}
EXECUTE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "code": {
            "type": "string",
            "minLength": 1,
            "maxLength": MAX_SCRIPT,
            "description": "The Python script. Its last line's value and what it prints come back.",
        },
        "resume": {
            "type": "string",
            "minLength": 1,
            "maxLength": SCRIPT_ID,
            "description": "Instead of code: the id of a paused script, to go on with it.",
        },
    },
    "additionalProperties": False,
}


def _annotations(title: str, read_only: bool) -> dict[str, Any]:
    return {
        "title": title,
        "readOnlyHint": read_only,
        "destructiveHint": not read_only,
        "idempotentHint": read_only,
        "openWorldHint": not read_only,
    }


def code_mode_tools(
    title: str, operations: int, limits: CodeModeConfig, tags: Sequence[tuple[str, int]] = ()
) -> list[dict[str, Any]]:
    """The two MCP tools of an API in code mode. `title` is the document's own (`info.title`);
    `operations`: how many the caller may use; `tags`: the API's tags with their counts."""
    title = " ".join(title.split())[:100] or "this API"
    sections = f" Its tags: {tag_list(tags)}." if tags else ""
    search_title = f"Find functions of {title}"
    execute_title = f"Run a Python script against {title}"
    return [
        {
            "name": SEARCH,
            "title": search_title,
            "description": (
                f"{title} has {operations} operations, each a Python function of the module `api` for "
                f"{EXECUTE} scripts. Describe what you want to do and get the best-matching functions: "
                "their signatures, descriptions and what they return. Search again with the API's own "
                f"words for things if none fits, or give `tag` to list one part of the API.{sections}"
            ),
            "inputSchema": SEARCH_SCHEMA,
            "annotations": _annotations(search_title, read_only=True),
        },
        {
            "name": EXECUTE,
            "title": execute_title,
            "description": (
                f"Run a short Python script that calls {title}: each operation is a function of the module "
                '`api` taking keyword arguments, e.g. `order = api.getOrder(orderId="42")`, and returns the '
                f"parsed answer (dicts and lists). Find the functions with {SEARCH} first. Chain calls, "
                "filter and compute in the script: only what it prints and the value of its last line come "
                'back, so end with just what is needed. A failed call raises RuntimeError("[code] message"), '
                "which the script may catch. Each call is checked, counted and logged as a tool call is, and "
                "may change data. A call that needs a person's approval pauses the script: the answer gives "
                "its id; call again later with `resume` set to it, and it goes on there without repeating "
                "the calls before. The sandbox runs a subset of Python (no class inheritance, no generators) "
                "with `api` and standard modules such as json, re, math and datetime: no files, network or "
                f"other imports. Limits: {limits.time:g} s of running, {limits.calls} calls per script."
            ),
            "inputSchema": EXECUTE_SCHEMA,
            "annotations": _annotations(execute_title, read_only=False),
        },
    ]


def document_tags(toolset: ToolSet) -> tuple[tuple[str, int], ...]:
    """The API's tags with their operation counts, in the order search mode's index has them: the
    document's top-level `tags` first, then the rest by name."""
    data = toolset.document.data
    paths = data.get("paths") if isinstance(data, dict) else None
    counts: Counter[str] = Counter()
    for tool in toolset.tools:
        try:
            tags = paths[tool.operation.path][tool.operation.method.lower()].get("tags")  # type: ignore[index]
        except (KeyError, TypeError, AttributeError):
            continue
        counts.update(
            {str(tag) for tag in tags if isinstance(tag, str | int | float)} if isinstance(tags, list) else ()
        )
    listed = data.get("tags") if isinstance(data, dict) else None
    named = (
        [tag["name"] for tag in listed if isinstance(tag, dict) and isinstance(tag.get("name"), str)]
        if isinstance(listed, list)
        else []
    )
    order = [tag for tag in dict.fromkeys(named) if tag in counts] + sorted(set(counts) - set(named))
    return tuple((tag, counts[tag]) for tag in order)
