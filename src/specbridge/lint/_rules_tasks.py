"""Rules about tasks of several steps: an id an agent must give that no operation's answer gives it."""

from __future__ import annotations

from collections.abc import Iterable

from ..tools import Tool
from ._model import Finding, LintContext, Registry, Severity


def id_source_missing(context: LintContext) -> Iterable[Finding]:
    """A required argument that identifies something (a path parameter, a `*_id`, a uuid) whose value no
    operation of the document answers with: no `links` entry, no list or search of its resource, no
    answer field of its name. The conversion worked it out (`Tool.provenance`); `provenance: false` for
    the API turns the conversion's part, and so this rule, off. Tools none of whose answers have a
    schema get no findings: every id would be one, and what they lack is their answers' schemas."""
    if not any(_answer_described(tool) for tool in context.tools):
        return
    for tool in context.tools:
        required = {argument.name: argument for argument in tool.arguments if argument.required}
        for entry in tool.provenance:
            argument = required.get(entry.argument)
            if entry.producers or argument is None:
                continue
            yield context.finding(
                "id-source-missing",
                f"`{entry.argument}` names one thing, but no operation's answer gives it (no `links`, no "
                "list or search of it, no answer field of that name): an agent can fill it only when "
                "its user says it.",
                "Add a list or search operation whose answer carries it, an OpenAPI `links` entry from "
                "the operation that returns it, or say in the argument's description where it comes from.",
                pointer=argument.pointer,
                tool=tool,
                argument=entry.argument,
            )


def _answer_described(tool: Tool) -> bool:
    return any(
        media.schema is not None
        for response in tool.operation.responses
        if response.status.startswith("2")
        for media in response.content
    )


def register(registry: Registry) -> None:
    registry.add(
        "id-source-missing",
        Severity.INFO,
        "A required id that no operation's answer gives.",
        id_source_missing,
    )
