"""Search mode's two tools as a client lists them, `search_tools` and `call_tool`: their names, input
schemas and descriptions. Nothing here imports the MCP SDK: the stdio front lists them too, before the
gateway loads (`_first_answers`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..search import tag_list

SEARCH_TOOL = "search_tools"
CALL_TOOL = "call_tool"
DEFAULT_RESULTS = 5
MAX_RESULTS = 20

SEARCH_TOOL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {
            "type": "string",
            "minLength": 1,
            "maxLength": 500,
            "description": (
                "What you want to do: the action and what it acts on. The API's own names for things, "
                "where you know them, match best."
            ),
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


def search_mode_tools(
    title: str, tool_count: int, tags: Sequence[tuple[str, int]] = ()
) -> list[dict[str, Any]]:
    """The two MCP tools a client sees in search mode, instead of the API's `tool_count` tools.
    `title` is the document's own (`info.title`), so the model knows which API it is searching."""
    title = " ".join(title.split())[:100] or "this"
    sections = f" Its tags: {tag_list(tags)}." if tags else ""
    return [
        {
            "name": SEARCH_TOOL,
            "title": f"Search the tools of {title}",
            "description": (
                f"{title} has {tool_count} operations, too many to list. Describe what you want to do "
                "and get the few best-matching tools, each with its input schema; then call one with "
                f"{CALL_TOOL}. If none fits, search again with the words this API would use for the "
                "thing (its resource names), or give `tag` to look only "
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
