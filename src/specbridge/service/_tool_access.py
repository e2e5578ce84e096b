"""Which tools of one API one caller may use (PRODUCT §5.2): its client's `clients.<id>.tools.<api>`
(`allow`, then `deny`), and, for a call that came with an access token on an API with
`oauth.scopes`, the tools its scopes give. Both must let a tool through.

The call service refuses a call of any other tool as "unknown tool", before its arguments are read
(`_access.admit`), and the adapter leaves such tools out of the caller's `tools/list` and search
results, with the same `ToolRules`: what a caller cannot use, it cannot see.

A rule names a tool by any key `tools.<name>` takes (its final name, its derived name, its operationId)
or by a glob pattern over them (`get*`, `*Order`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase

from .._errors import ErrorCode
from ..call import CallResult, Lru
from ..config import ApiConfig, ClientConfig, ToolAccess, is_pattern
from ..tools import Tool


def matches(tool: Tool, patterns: Sequence[str]) -> bool:
    """Whether any of `patterns` (names or globs) names `tool`."""
    names = (tool.name, tool.default_name, tool.operation.operation_id or "")
    for pattern in patterns:
        if is_pattern(pattern):
            if any(name and fnmatchcase(name, pattern) for name in names):
                return True
        elif pattern in names:
            return True
    return False


@dataclass(frozen=True, slots=True)
class ToolRules:
    """The rules one caller meets on one API (hashable: a listing is kept per client and rules).
    `access`: its client's rules; `granted`: the tools its token's scopes give (None: the call came
    without a token, or the API gives no tools by scope); `client`, `api`: for the key a denial names."""

    api: str
    client: str | None = None
    access: ToolAccess | None = None
    granted: tuple[str, ...] | None = None

    @property
    def everything(self) -> bool:
        """No rule narrows this caller's tools."""
        return self.access is None and self.granted is None

    def denial(self, tool: Tool) -> str | None:
        """The config key that keeps `tool` from this caller (for the audit log), or None."""
        access = self.access
        if access is not None:
            where = f"clients.{self.client}.tools.{self.api}"
            if access.allow is not None and not matches(tool, access.allow):
                return f"{where}.allow"
            if access.deny and matches(tool, access.deny):
                return f"{where}.deny"
        if self.granted is not None and not matches(tool, self.granted):
            return f"apis.{self.api}.oauth.scopes"
        return None

    def allows(self, tool: Tool) -> bool:
        return self.everything or self.denial(tool) is None


def tool_rules(api: ApiConfig, client: ClientConfig | None, scopes: frozenset[str] | None) -> ToolRules:
    """The rules a caller meets on `api`: `client` (None: no client), `scopes` (its token's; None: no
    token)."""
    access = client.tools.get(api.name) if client is not None else None
    granted = None
    given = api.oauth.scopes if api.oauth is not None else None
    if given and scopes is not None:
        granted = tuple(
            dict.fromkeys(tool for scope, tools in given.items() if scope in scopes for tool in tools)
        )
    return ToolRules(api.name, client.id if client is not None else None, access, granted)


def unknown_tool(name: str) -> CallResult:
    """A refused tool, said exactly as a tool that does not exist (the adapter answers both alike)."""
    return CallResult(f"unknown tool: {name[:128]!r}", is_error=True, code=ErrorCode.TOOL_UNKNOWN)


class Allowed:
    """The positions in `tools` of those a caller with given `ToolRules` may use, kept for the last
    `kept` rules (search mode's and code mode's listings ask on every request)."""

    def __init__(self, tools: Sequence[Tool], kept: int) -> None:
        self._tools = tools
        self._kept: Lru[ToolRules, frozenset[int]] = Lru(kept)

    def positions(self, rules: ToolRules) -> frozenset[int] | None:
        """The positions `rules` allows (None: every tool)."""
        if rules.everything:
            return None
        found = self._kept.get(rules)
        if found is None:
            found = frozenset(i for i, tool in enumerate(self._tools) if rules.allows(tool))
            self._kept.put(rules, found)
        return found
