"""Tool and argument names: MCP names, the portable 64-character form, and stable uniqueness."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Collection, Sequence

from ..document import Operation

MCP_NAME_MAX = 128
PORTABLE_NAME_MAX = 64
PORTABLE_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
_NOT_MCP = re.compile(r"[^A-Za-z0-9_.-]")
_NOT_PORTABLE = re.compile(r"[^A-Za-z0-9_-]")
_RUNS = re.compile(r"_+")


def short_hash(text: str, length: int = 6) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:length]


def shorten(name: str, limit: int) -> str:
    """`name` itself when it fits; else its start and a stable hash of the whole, `limit` long."""
    if len(name) <= limit:
        return name
    digest = short_hash(name, 8)
    return f"{name[: limit - len(digest) - 1]}_{digest}"


def base_name(operation: Operation) -> str:
    """x-agentify/x-mcp name, else operationId, else method and path; other characters become `_`."""
    given = operation.extension_name or operation.operation_id
    if given:
        return shorten(_NOT_MCP.sub("_", given), MCP_NAME_MAX)
    return shorten(method_path_name(operation.method, operation.path), MCP_NAME_MAX)


def method_path_name(method: str, path: str) -> str:
    """`GET /search` -> `get_search`; `GET /users/{id}` -> `get_users_id`."""
    joined = _RUNS.sub("_", _NOT_MCP.sub("_", f"{method.lower()}_{path}"))
    return joined.strip("_") or method.lower()


def portable_name(name: str) -> str:
    """For targets that reject `.` or names over 64 characters (OpenAI, Anthropic, many MCP clients)."""
    return shorten(_NOT_PORTABLE.sub("_", name), PORTABLE_NAME_MAX)


def argument_name(name: str) -> str:
    """Argument (property) names must match ^[a-zA-Z0-9_.-]{1,64}$ for Anthropic and others."""
    cleaned = _NOT_MCP.sub("_", name) or "_"
    return shorten(cleaned, PORTABLE_NAME_MAX)


def unique_names(
    names: Sequence[str],
    identities: Sequence[str],
    *,
    limit: int,
    fit: Callable[[str], str] = lambda n: n,
    keep: Collection[int] = (),
) -> list[str]:
    """Make names unique. Among equal names, the one whose identity sorts first keeps it (a position in
    `keep`, e.g. a name set by the config, before any other); the others get `_` and a short hash of
    their own identity (e.g. "GET /pets"), so a suffix never depends on the order of unrelated
    operations."""
    result = list(names)
    for _ in range(4):  # a suffixed name can collide again only by a hash accident; widen and retry
        groups: dict[str, list[int]] = {}
        for position, name in enumerate(result):
            groups.setdefault(name, []).append(position)
        clashes = [positions for positions in groups.values() if len(positions) > 1]
        if not clashes:
            return result
        for positions in clashes:
            ordered = sorted(positions, key=lambda p: (p not in keep, identities[p]))
            for position in ordered[1:]:
                suffix = "_" + short_hash(identities[position] + result[position], 6)
                result[position] = fit(result[position][: limit - len(suffix)] + suffix)
    return result
