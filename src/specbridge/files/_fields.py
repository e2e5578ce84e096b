"""Which tool fields take a file (a multipart file part or a raw binary body), the schema the gateway
serves for them, and the source documents' `attachments: [{file_id, …}]` form for a tool with exactly
one such field."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from .._errors import CallError, ErrorCode
from ..tools import Tool

Json = Any
FileField = Literal["part", "body"]
ATTACHMENTS = "attachments"

FILE_REF: dict[str, Json] = {
    "type": "object",
    "description": "A file uploaded to the gateway (POST /files) or kept from an earlier answer, by its id.",
    "properties": {
        "file_id": {"type": "string", "minLength": 1, "maxLength": 128},
        "filename": {"type": "string", "maxLength": 255, "description": "Default: the file's own name."},
        "content_type": {"type": "string", "maxLength": 255, "description": "Default: the file's own type."},
    },
    "required": ["file_id"],
    "additionalProperties": False,
}


# -- which fields take a file --------------------------------------------------------------------------


def _is_binary(schema: Json) -> bool:
    """Raw content: `format: binary` or a `contentMediaType`, unless the text is base64 of it."""
    if not isinstance(schema, dict) or schema.get("format") == "byte":
        return False
    if schema.get("contentEncoding") == "base64":  # bytes as base64; without a media type, base64 text
        return "contentMediaType" in schema
    media = schema.get("contentMediaType")
    if isinstance(media, str) and media.lower().startswith("text/"):
        return False  # text the agent writes, not a file
    return schema.get("format") == "binary" or media is not None


def file_fields(tool: Tool) -> dict[str, FileField]:
    """The arguments of `tool` that take a file: multipart file parts, or the raw binary body."""
    body = tool.body
    if body is None:
        return {}
    declared = body.content_type.split(";")[0].strip().lower()
    if declared == "application/json" or declared.endswith("+json") or "urlencoded" in declared:
        return {}
    found: dict[str, FileField] = {}
    for argument in tool.arguments:
        if argument.location != "body":
            continue
        if body.whole and argument.name == "body":
            if _is_binary(argument.schema):  # base64 text or raw bytes: not JSON, a form or plain text
                found["body"] = "body"
        # A part the document wants as base64 text stays text: raw bytes would not be what it reads.
        elif (
            declared == "multipart/form-data"
            and _is_binary(argument.schema)
            and "contentEncoding" not in argument.schema
        ):
            found[argument.name] = "part"
    return found


def attachments_field(tool: Tool) -> str | None:
    """The one file field an `attachments` array fills, when the tool has exactly one and no argument
    of its own named `attachments`."""
    fields = file_fields(tool)
    if len(fields) != 1 or any(argument.name == ATTACHMENTS for argument in tool.arguments):
        return None
    return next(iter(fields))


def with_file_fields(schema: dict[str, Json], tool: Tool) -> dict[str, Json]:
    """`schema` (as served) with each file field taking a file reference as well as what it took, and,
    where the tool has exactly one, an `attachments` array of one reference that fills it instead. The
    field stays `required`: clients that fill what a schema requires keep sending it, and the gateway
    takes `attachments` in its place (checked in `from_attachments`)."""
    fields = file_fields(tool)
    properties = schema.get("properties")
    if not fields or not isinstance(properties, dict):
        return schema
    changed = dict(properties)
    for name in fields:
        original = properties.get(name)
        if isinstance(original, dict):
            changed[name] = {"anyOf": [original, FILE_REF]}
    served = {**schema, "properties": changed}
    single = attachments_field(tool)
    if single is not None and single in changed and ATTACHMENTS not in changed:
        changed[ATTACHMENTS] = {
            "type": "array",
            "description": f"The file for `{single}`, as a list of exactly one reference (instead of `{single}`).",
            "items": FILE_REF,
            "minItems": 1,
            "maxItems": 1,
        }
    return served


def from_attachments(tool: Tool, arguments: Mapping[str, Json]) -> Mapping[str, Json]:
    """The arguments with a top-level `attachments: [{file_id, …}]` moved into the tool's one file field;
    unchanged when there is none. Two files, or a file given both ways, is `arguments-invalid`."""
    if ATTACHMENTS not in arguments:
        return arguments
    single = attachments_field(tool)
    if single is None:
        return arguments  # the tool's own argument, or no single field to fill: the call check decides
    given = arguments[ATTACHMENTS]
    if not isinstance(given, list) or len(given) != 1:
        count = f"{len(given)} items" if isinstance(given, list) else "not a list"
        raise CallError(
            f"invalid arguments: attachments: give exactly one file ({count}); this tool takes one file, in `{single}`",
            code=ErrorCode.ARGUMENTS_INVALID,
        )
    if single in arguments:
        raise CallError(
            f"invalid arguments: attachments: the file for `{single}` is given twice; "
            f"give it either as `{single}` or as `attachments`, not both",
            code=ErrorCode.ARGUMENTS_INVALID,
        )
    (ref,) = given
    if not is_file_ref(ref) or set(ref) - set(FILE_REF["properties"]):
        raise CallError(
            'invalid arguments: attachments[0]: expected {"file_id", "filename"?, "content_type"?}',
            code=ErrorCode.ARGUMENTS_INVALID,
        )
    moved = {name: value for name, value in arguments.items() if name != ATTACHMENTS}
    moved[single] = ref
    return moved


def is_file_ref(value: Json) -> bool:
    return isinstance(value, dict) and isinstance(value.get("file_id"), str)


def file_references(
    tool: Tool, arguments: Mapping[str, Json]
) -> tuple[Mapping[str, Json], dict[str, Mapping[str, Json]]]:
    """The arguments with each file reference taken out (an empty text stands in, so a required field
    is still given and the document's schema still checks them), and the references by field."""
    arguments = from_attachments(tool, arguments)
    refs = {name: arguments[name] for name in file_fields(tool) if is_file_ref(arguments.get(name))}
    if not refs:
        return arguments, {}
    return {**arguments, **dict.fromkeys(refs, "")}, refs
