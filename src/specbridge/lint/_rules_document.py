"""Rules about what the agent reads and what the API asks of it: descriptions, deprecation, catalogue
size, unresolved refs, patterns no validator compiles, risky operations without approval, credentials
in the URL, document notes."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from typing import Any

from .._json import dumps_bytes
from ..document import Operation
from ..document.pointer import escape_token
from ..tools import CATALOGUE_MAX_TOKENS, CATALOGUE_MAX_TOOLS, Tool, base_name, catalogue_tokens, is_regex
from ._model import Finding, LintContext, Registry, Severity

_DEPRECATION_WORDS = re.compile(
    r"deprecat|sunset|obsolete|end[- ]of[- ]life|no longer (?:supported|available)|will be removed|"
    r"\bremov(?:ed|al)\b|\bretir",
    re.IGNORECASE,
)
_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_FILLER = frozenset({"a", "an", "the", "of", "for", "by", "to", "endpoint", "operation", "api", "method"})
_RESTATE_MAX_WORDS = 8
_IRREVERSIBLE_EXTENSIONS = ("x-irreversible", "x-specbridge-irreversible")
_PATTERN_VALUE = re.compile(rb'"pattern":"((?:[^"\\]|\\.)*)"')


def _words(text: str) -> list[str]:
    found = [word.lower() for word in _WORD.findall(text)]
    return [word[:-1] if len(word) > 3 and word.endswith("s") else word for word in found]


def _tool_of(context: LintContext) -> Callable[[Operation], Tool | None]:
    by_pointer = {tool.operation.pointer: tool for tool in context.tools}
    return lambda operation: by_pointer.get(operation.pointer)


def deprecated_silent(context: LintContext) -> Iterable[Finding]:
    tool_of = _tool_of(context)
    for operation in context.toolset.document.operations:
        if not operation.deprecated and not operation.sunset:
            continue
        # The original words: the conversion writes its own notice into the tool's description.
        if _DEPRECATION_WORDS.search(f"{operation.summary}\n{operation.description}"):
            continue
        what = "deprecated" if operation.deprecated else "scheduled for removal"
        where = "the `deprecated` flag" if operation.deprecated else "a Sunset header/extension"
        when = f" (sunset {operation.sunset})" if operation.sunset else ""
        tool = tool_of(operation)
        finding = context.finding(
            "deprecated-silent",
            f"{operation.label} is {what}{when} only in {where}; a tool definition has no such field, "
            "so an agent keeps calling it until it breaks.",
            "Say it in the description, in words, with the date and what to use instead.",
            pointer=operation.pointer + ("/deprecated" if operation.deprecated else ""),
            tool=tool,
        )
        if tool is None:
            from dataclasses import replace

            finding = replace(finding, tool=base_name(operation), operation=operation.label)
        yield finding


def description_missing(context: LintContext) -> Iterable[Finding]:
    for tool in context.tools:
        operation = tool.operation
        if not operation.summary and not operation.description:
            yield context.finding(
                "description-missing",
                "the operation has no summary or description; the agent gets only the tool's name to "
                "decide when to call it.",
                "Write a description: what it does, when to use it, and what it returns.",
                pointer=operation.pointer,
                tool=tool,
            )


def description_restates_name(context: LintContext) -> Iterable[Finding]:
    for tool in context.tools:
        operation = tool.operation
        text = " ".join(part for part in (operation.summary, operation.description) if part)
        words = _words(text)
        if not words or len(words) > _RESTATE_MAX_WORDS:
            continue
        known = set(_words(tool.name)) | set(_words(operation.path)) | {operation.method.lower()}
        if set(words) - _FILLER <= known:
            yield context.finding(
                "description-restates-name",
                f"the description ({text!r}) only restates the name `{tool.name}`; it tells the agent "
                "nothing about when to call it, and under tool search it is nearly invisible.",
                "Say what the operation does, when to use it and what it returns, in words the name lacks.",
                pointer=operation.pointer + ("/description" if operation.description else "/summary"),
                tool=tool,
            )


def catalogue_size(context: LintContext) -> Iterable[Finding]:
    tools = context.tools
    api = context.api
    if not tools or (api is not None and (api.search == "on" or api.code_mode.enabled)):
        return  # served as two tools: search mode's, or code mode's
    tokens = catalogue_tokens(context.toolset)
    if tokens <= CATALOGUE_MAX_TOKENS and len(tools) <= CATALOGUE_MAX_TOOLS:
        return
    yield context.finding(
        "catalogue-size",
        f"{len(tools)} tools take about {tokens:,} tokens, sent before every request; past "
        f"{CATALOGUE_MAX_TOOLS} tools or {CATALOGUE_MAX_TOKENS:,} tokens the list crowds the context and "
        "models choose tools worse.",
        "`specbridge serve` offers it in search mode (`search: auto`, the default, or `on`), or in code "
        "mode (`code_mode: on`: a search and a script, about a thousand tokens); for exported tools use "
        "`--defer-loading`, or split the API.",
        pointer="/paths",
    )


def ref_unresolved(context: LintContext) -> Iterable[Finding]:
    document = context.toolset.document
    seen: set[str] = set()
    for note in document.notes:
        if note.rule == "ref-unresolved":
            seen.add(note.message)
            yield context.finding(
                "ref-unresolved",
                note.message,
                "Point the $ref at a part of this document or a local file.",
                pointer=note.pointer,
            )
    for ref, why in context.toolset.unresolved_refs.items():
        message = f"$ref {ref!r} {why}"
        if message in seen:
            continue
        yield context.finding(
            "ref-unresolved",
            message + "; the schema it stands for is open (any value) in the tools that use it.",
            "Point the $ref at a part of this document or a local file.",
            pointer=_where_ref(document.data, ref),
        )


def _where_ref(data: Any, ref: str) -> str:
    """The first place the document writes this `$ref` (one walk, only when a ref is unresolved)."""
    stack: list[tuple[Any, str]] = [(data, "")]
    while stack:
        node, pointer = stack.pop()
        if isinstance(node, dict):
            if node.get("$ref") == ref:
                return pointer + "/$ref"
            stack.extend(
                (value, f"{pointer}/{escape_token(str(key))}") for key, value in reversed(node.items())
            )
        elif isinstance(node, list):
            stack.extend((value, f"{pointer}/{index}") for index, value in reversed(list(enumerate(node))))
    return ""


def pattern_invalid(context: LintContext) -> Iterable[Finding]:
    """A `pattern` (or `patternProperties` key) that is no ECMA-262 regular expression: the tools leave
    it out, so the agent is never told the rule the API checks."""
    data = context.toolset.document.data
    if not _may_hold_bad_pattern(data):
        return
    stack: list[tuple[Any, str]] = [(data, "")]
    while stack:
        node, pointer = stack.pop()
        if isinstance(node, dict):
            pattern = node.get("pattern")
            if isinstance(pattern, str) and not is_regex(pattern):
                yield _bad_pattern(context, pattern, f"{pointer}/pattern")
            keyed = node.get("patternProperties")
            for key in keyed if isinstance(keyed, dict) else ():
                if isinstance(key, str) and not is_regex(key):
                    yield _bad_pattern(context, key, f"{pointer}/patternProperties/{escape_token(key)}")
            stack.extend(
                (value, f"{pointer}/{escape_token(str(key))}") for key, value in reversed(node.items())
            )
        elif isinstance(node, list):
            stack.extend((value, f"{pointer}/{index}") for index, value in reversed(list(enumerate(node))))


def _may_hold_bad_pattern(data: Any) -> bool:
    """False when every `pattern` value in the document compiles, found in its JSON text at C speed
    (the walk that names pointers costs a Python step per node: seconds on a 50 MB document)."""
    try:
        text = dumps_bytes(data)
    except (TypeError, ValueError):
        return True
    if b'"patternProperties"' in text:
        return True
    return not all(is_regex(json.loads(b'"' + raw + b'"')) for raw in set(_PATTERN_VALUE.findall(text)))


def _bad_pattern(context: LintContext, pattern: str, pointer: str) -> Finding:
    shown = pattern if len(pattern) <= 80 else pattern[:77] + "..."
    return context.finding(
        "pattern-invalid",
        f"The pattern {shown!r} is not a JSON Schema (ECMA-262) regular expression; the tools leave it "
        "out, so an agent is not told what the API will check.",
        "Write it as ECMA-262 understands it (`\\z` and `\\Z` do not exist there: end with `$`).",
        pointer=pointer,
    )


def destructive_unguarded(context: LintContext) -> Iterable[Finding]:
    api = context.api
    for tool in context.tools:
        operation = tool.operation
        extensions = operation.extensions if isinstance(operation.extensions, dict) else {}
        irreversible = any(extensions.get(key) is True for key in _IRREVERSIBLE_EXTENSIONS)
        if operation.method != "DELETE" and not irreversible:
            continue
        settings = api.tool_settings(tool) if api is not None else None
        if settings is not None and settings.requires_approval:
            continue
        yield context.finding(
            "destructive-unguarded",
            f"{operation.label} cannot be undone, and nothing asks a person before an agent calls it.",
            f"Set `tools.{tool.name}.requires_approval: true` in specbridge.yaml.",
            pointer=operation.pointer,
            tool=tool,
        )


def credential_in_query(context: LintContext) -> Iterable[Finding]:
    document = context.toolset.document
    base = "/securityDefinitions" if document.version.startswith("2") else "/components/securitySchemes"
    for scheme in document.security_schemes:
        if scheme.type == "apiKey" and scheme.location == "query":
            yield context.finding(
                "credential-in-query",
                f"the security scheme `{scheme.name}` sends the key in the query (`{scheme.parameter_name}`), "
                "so it lands in URLs, logs and agent traces.",
                "Accept the key in a header (e.g. `Authorization` or `X-API-Key`) as well, and document that.",
                pointer=f"{base}/{escape_token(scheme.name)}",
            )


KNOWN_NOTES = {
    "servers-missing": (Severity.INFO, "The document names no server.", "Add a `servers` entry."),
    "title-missing": (Severity.INFO, "The document has no info.title.", "Add `info.title`."),
    "parameter-invalid": (
        Severity.WARNING,
        "A parameter cannot be used and is left out.",
        "Give the parameter a `name` and an `in` (path, query, header, cookie).",
    ),
}


def document_notes(context: LintContext) -> Iterable[Finding]:
    """Odd-but-usable things the reader noted (`spec.Note`), each under its own rule id."""
    for note in context.toolset.document.notes:
        if note.rule == "ref-unresolved":
            continue
        fix = KNOWN_NOTES[note.rule][2] if note.rule in KNOWN_NOTES else "See the message."
        yield context.finding(
            note.rule, note.message[:1].upper() + note.message[1:] + ".", fix, pointer=note.pointer
        )


def register(registry: Registry) -> None:
    registry.add(
        "deprecated-silent",
        Severity.WARNING,
        "Deprecation or sunset lives only in flags and headers.",
        deprecated_silent,
    )
    registry.add(
        "description-missing", Severity.WARNING, "An operation has no description.", description_missing
    )
    registry.add(
        "description-restates-name",
        Severity.INFO,
        "A description only restates the tool's name.",
        description_restates_name,
    )
    registry.add(
        "catalogue-size", Severity.WARNING, "The tool list is too big for one context.", catalogue_size
    )
    registry.add("ref-unresolved", Severity.ERROR, "A $ref cannot be followed.", ref_unresolved)
    registry.add(
        "pattern-invalid",
        Severity.WARNING,
        "A pattern is not a regular expression a validator compiles.",
        pattern_invalid,
    )
    registry.add(
        "destructive-unguarded",
        Severity.WARNING,
        "A DELETE or irreversible operation runs without approval.",
        destructive_unguarded,
    )
    registry.add(
        "credential-in-query",
        Severity.WARNING,
        "An API key is sent in the query string.",
        credential_in_query,
    )
    registry.add("document-notes", Severity.WARNING, "Odd-but-usable parts of the document.", document_notes)
    for rule_id, (severity, summary, _) in KNOWN_NOTES.items():
        registry.add(rule_id, severity, summary)
