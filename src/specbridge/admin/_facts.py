"""What the page says about the operation an approval would call, handed in by whoever serves the page.

An approval record names its API and tool; what that tool sends (method, path, base URL, summary,
hints) lives in the documents the gateway serves now. The gateway passes a `ToolLookup` when it
builds the admin routes, so this package never imports the gateway (the layer rule).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ToolFacts:
    method: str  # upper case
    path: str  # the document's path template, e.g. /orders/{orderId}/refund
    base_url: str | None  # None: the API has no base URL (every call fails)
    summary: str  # the operation's summary (or the tool's title or description), may be ""
    read_only: bool
    destructive: bool


# (api, tool name) -> what the gateway serves for it now, or None (no such API or tool any more).
ToolLookup = Callable[[str, str], ToolFacts | None]


def no_lookup(api: str, tool: str) -> ToolFacts | None:
    """The admin app on its own (no gateway): nothing is known beyond the record."""
    return None
