"""Operation -> Tool: the one conversion that lint, tools and serve all use."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace
from typing import Any

from .._json import dumps_bytes
from ..document import ApiDocument, Operation, Schema
from ._arguments import ArgumentPlan, credential_names, plan_arguments
from ._describe import describe, hints, shorten_text, title
from ._icons import logo_icons
from ._model import ConvertOptions, Tool, ToolSet
from ._naming import MCP_NAME_MAX, PORTABLE_NAME_MAX, base_name, portable_name, shorten, unique_names
from ._provenance import provenance
from ._provenance_note import provenance_note
from ._schema import COMPACT_INLINE_BYTES, MAX_INPUT_SCHEMA_BYTES, SchemaShaper

Json = Any
# Output schemas describe answers (a client may check structuredContent against them); past this many
# nested objects/arrays they stop describing, so one response type cannot drag a whole API along.
OUTPUT_SCHEMA_LEVELS = 1


def convert(document: ApiDocument, options: ConvertOptions | None = None) -> ToolSet:
    """Every operation of the document as a tool (deprecated ones only when asked for)."""
    options = options or ConvertOptions()
    shaper = SchemaShaper(document.resolver)
    credentials = credential_names(document)
    kept = [op for op in document.operations if options.include_deprecated or not op.deprecated]
    skipped = tuple(op for op in document.operations if op.deprecated and not options.include_deprecated)
    identities = [op.label for op in kept]
    names = unique_names([base_name(op) for op in kept], identities, limit=MCP_NAME_MAX)

    # `tools.<key>` matches the tool's name, or its operationId when only one operation has it.
    id_counts = Counter(op.operation_id for op in kept if op.operation_id)
    tools: list[Tool] = []
    given: list[str | None] = []  # each tool's description from the config, if any
    disabled: list[str] = []
    renamed: set[int] = set()
    compact: SchemaShaper | None = None  # made only for a document whose copies multiply
    for operation, name in zip(kept, names, strict=True):
        override = options.overrides.get(name)
        if override is None and operation.operation_id and id_counts[operation.operation_id] == 1:
            override = options.overrides.get(operation.operation_id)
        if override is not None and override.disabled:
            disabled.append(name)
            continue
        plan = plan_arguments(operation, document, shaper, credentials)
        definitions = shaper.definitions(plan.needs, "input")
        if _input_bytes(plan, definitions) > MAX_INPUT_SCHEMA_BYTES:
            compact = compact or SchemaShaper(document.resolver, COMPACT_INLINE_BYTES)
            plan = plan_arguments(operation, document, compact, credentials)
            definitions = compact.definitions(plan.needs, "input")
        final_name = override.name if override is not None and override.name else name
        if final_name != name:
            renamed.add(len(tools))
        description = describe(operation, options.description_max)
        if override is not None and override.description:
            description = override.description
            if options.description_max is not None:
                description = shorten_text(description, options.description_max)
        tools.append(_tool(operation, final_name, name, description, plan, definitions, shaper))
        given.append(override.description if override is not None and override.description else None)
    if renamed:  # a configured name wins; a tool it collides with takes the suffix
        finals = unique_names(
            [tool.name for tool in tools],
            [tool.operation.label for tool in tools],
            limit=MCP_NAME_MAX,
            keep=renamed,
        )
        tools = [replace(tool, name=final) for tool, final in zip(tools, finals, strict=True)]

    portables = unique_names(
        [portable_name(tool.name) for tool in tools],
        [tool.operation.label for tool in tools],
        limit=PORTABLE_NAME_MAX,
        fit=lambda n: shorten(n, PORTABLE_NAME_MAX),
    )
    icons = logo_icons(document.data)
    tools = [
        replace(tool, portable_name=portable, icons=icons)
        for tool, portable in zip(tools, portables, strict=True)
    ]
    if options.provenance:
        tools = _with_provenance(tools, given, document, options.description_max)
    return ToolSet(
        document=document,
        tools=tuple(tools),
        unresolved_refs=dict(sorted((shaper.unresolved | (compact.unresolved if compact else {})).items())),
        skipped_deprecated=skipped,
        disabled=tuple(disabled),
    )


def _with_provenance(
    tools: list[Tool], given: list[str | None], document: ApiDocument, limit: int | None
) -> list[Tool]:
    """Each tool with where its ids come from, and the confident part of it ending its description
    (within `limit`: the lines take at most half, the description is shortened around them)."""
    found = provenance(tools, document)
    result = []
    for tool, text in zip(tools, given, strict=True):
        entries = found.get(tool.name, ())
        note = provenance_note(entries, limit=None if limit is None else limit // 2)
        description = tool.description
        if note:
            if limit is not None:
                room = max(limit - len(note) - 2, 0)
                description = shorten_text(text, room) if text is not None else describe(tool.operation, room)
            description = f"{description}\n\n{note}" if description else note
        result.append(replace(tool, description=description, provenance=entries, provenance_note=note))
    return result


def _input_bytes(plan: ArgumentPlan, definitions: dict[str, Json]) -> int:
    """About the size of the tool's input schema: its arguments' schemas and the `$defs` they need."""
    return len(dumps_bytes([argument.schema for argument in plan.arguments])) + len(dumps_bytes(definitions))


def _tool(
    operation: Operation,
    name: str,
    default_name: str,
    description: str,
    plan: ArgumentPlan,
    definitions: dict[str, Json],
    shaper: SchemaShaper,
) -> Tool:
    properties = {argument.name: argument.schema for argument in plan.arguments}
    required = [argument.name for argument in plan.arguments if argument.required]
    input_schema: dict[str, Json] = {"type": "object", "properties": properties}
    if required:
        input_schema["required"] = required
    input_schema["additionalProperties"] = False
    if definitions:
        input_schema["$defs"] = definitions
    output_schema, answer_schema = _answer_schemas(operation, shaper)
    return Tool(
        name=name,
        portable_name=portable_name(name),
        title=title(operation),
        description=description,
        input_schema=input_schema,
        output_schema=output_schema,
        answer_schema=answer_schema,
        hints=hints(operation.method),
        arguments=plan.arguments,
        body=plan.body,
        operation=operation,
        left_out=plan.left_out,
        default_name=default_name,
        fixed_headers=plan.fixed_headers,
        accept=accept_header(operation),
    )


_MEDIA_TYPE = re.compile(
    r"^[A-Za-z0-9!#$&^_.+-]+/[A-Za-z0-9!#$&^_.+*-]+(\s*;\s*[A-Za-z0-9!#$&^_.+-]+=[^\s;,]+)*$"
)


def accept_header(operation: Operation) -> str:
    """`Accept` from the media types the operation answers with: JSON ones first, the rest after, then
    anything (an error page may be HTML). "" when the document names none."""
    kinds: dict[str, None] = {}
    for response in operation.responses:
        for media in response.content:
            kind = media.content_type.strip()
            if _MEDIA_TYPE.match(kind) and not kind.startswith("*/"):
                kinds[kind] = None
    if not kinds:
        return ""
    json_kinds = [k for k in kinds if _is_json(k)]
    rest = [k for k in kinds if not _is_json(k)]
    parts = json_kinds + [f"{k};q=0.9" if ";" not in k else k for k in rest]
    return ", ".join([*parts, "*/*;q=0.8"])


def _is_json(kind: str) -> bool:
    base = kind.split(";", 1)[0].strip().lower()
    return base == "application/json" or base.endswith("+json")


def _answer_schemas(operation: Operation, shaper: SchemaShaper) -> tuple[Json | None, Json | None]:
    """The first 2xx JSON answer's schema twice: as MCP's `outputSchema` up to 2025-11-25 (only when it
    is an object: those revisions require an object at the root), and whatever its root (2026-07-28
    takes any JSON Schema, so a list answer is structured too)."""
    for response in sorted(operation.responses, key=lambda r: r.status):
        if not response.status.startswith("2"):
            continue
        for media in response.content:
            kind = media.content_type.lower().split(";")[0].strip()
            if media.schema is None or not (kind == "application/json" or kind.endswith("+json")):
                continue
            _, target = shaper.resolve(media.schema.value, media.schema.base)
            root = shaper.shape_bounded(media.schema, "output", OUTPUT_SCHEMA_LEVELS)
            if isinstance(target, dict) and (target.get("type") == "object" or "properties" in target):
                shaped = {**root, "type": "object"} if isinstance(root, dict) else {"type": "object"}
                return shaped, shaped
            if isinstance(target, dict) and isinstance(root, dict) and target.get("type") is not None:
                return None, root
            return None, None
        return None, None
    return None, None


def _base_of(schema: Schema, shaper: SchemaShaper) -> str:
    return shaper.resolve(schema.value, schema.base)[0]
