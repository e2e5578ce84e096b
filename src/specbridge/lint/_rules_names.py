"""Rules about tool names: present, in the portable character class, short enough, unique."""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..document import Operation, pointer_of
from ..tools import Tool, base_name
from ._model import Finding, LintContext, Registry, Severity

PORTABLE_CHARS = re.compile(r"^[A-Za-z0-9_-]+$")
NAME_MAX = 64


def given_name(tool: Tool) -> tuple[str | None, str]:
    """The name the API owner chose (config override, x-mcp/x-agentify, operationId) and where it is."""
    operation = tool.operation
    if tool.default_name and tool.name != tool.default_name:
        return tool.name, operation.pointer
    return _document_name(operation)


def _document_name(operation: Operation) -> tuple[str | None, str]:
    extensions = operation.extensions if isinstance(operation.extensions, dict) else {}
    if operation.extension_name:
        for key in ("x-agentify", "x-mcp"):
            if key in extensions:
                named = isinstance(extensions[key], dict)
                return operation.extension_name, operation.pointer + pointer_of(
                    key, *(["name"] if named else [])
                )
    if operation.operation_id:
        return operation.operation_id, operation.pointer + "/operationId"
    return None, operation.pointer


def name_missing(context: LintContext) -> Iterable[Finding]:
    for tool in context.tools:
        if given_name(tool)[0] is None:
            yield context.finding(
                "name-missing",
                f"{tool.operation.label} has no operationId, so its tool is called `{tool.name}`, "
                "a name every converter invents differently.",
                "Give the operation an operationId (or an `x-mcp` name) made of letters, digits, `_` and `-`.",
                pointer=tool.operation.pointer,
                tool=tool,
            )


def name_charset(context: LintContext) -> Iterable[Finding]:
    for tool in context.tools:
        name, pointer = given_name(tool)
        if name is not None and not PORTABLE_CHARS.match(name):
            bad = "".join(sorted({c for c in name if not re.match(r"[A-Za-z0-9_-]", c)}))
            yield context.finding(
                "name-charset",
                f"the name `{name}` uses {bad!r}, outside ^[a-zA-Z0-9_-]{{1,64}}$; OpenAI and Anthropic "
                f"reject it, so the agent is shown `{tool.portable_name}` instead.",
                "Map the name to letters, digits, `_` and `-` in the document (e.g. `users.update` -> "
                "`updateUser`).",
                pointer=pointer,
                tool=tool,
            )


def name_length(context: LintContext) -> Iterable[Finding]:
    for tool in context.tools:
        name, pointer = given_name(tool)
        name = name if name is not None else tool.name
        if len(name) > NAME_MAX:
            yield context.finding(
                "name-length",
                f"the name is {len(name)} characters, over the {NAME_MAX} that OpenAI and many MCP clients "
                f"accept; the agent is shown `{tool.portable_name}`.",
                f"Shorten the operationId to at most {NAME_MAX} characters.",
                pointer=pointer,
                tool=tool,
            )


def name_duplicate(context: LintContext) -> Iterable[Finding]:
    groups: dict[str, list[Tool]] = {}
    for tool in context.tools:
        groups.setdefault(base_name(tool.operation), []).append(tool)
    for name, tools in groups.items():
        if len(tools) < 2:
            continue
        ordered = sorted(tools, key=lambda t: t.operation.label)
        for tool in ordered[1:]:
            yield context.finding(
                "name-duplicate",
                f"`{name}` also names {ordered[0].operation.label}; this tool gets the made-up name "
                f"`{tool.name}`.",
                "Give every operation its own operationId.",
                pointer=given_name(tool)[1],
                tool=tool,
            )


def register(registry: Registry) -> None:
    registry.add(
        "name-missing", Severity.WARNING, "An operation has no operationId or x-mcp name.", name_missing
    )
    registry.add(
        "name-charset", Severity.WARNING, "A tool name is outside ^[a-zA-Z0-9_-]{1,64}$.", name_charset
    )
    registry.add("name-length", Severity.WARNING, "A tool name is longer than 64 characters.", name_length)
    registry.add("name-duplicate", Severity.WARNING, "Two operations share a tool name.", name_duplicate)
