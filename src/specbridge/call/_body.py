"""Request bodies: JSON, form-urlencoded, multipart (file parts from attachments) and raw bytes."""

from __future__ import annotations

import base64
import re
import secrets
from collections.abc import Mapping
from typing import Any

from .._errors import ArgumentError, ErrorCode
from .._json import dumps, dumps_bytes
from ..tools import Argument, Tool
from ._check import format_path
from ._encode import deep_pairs, name_key, quote, refuse, scalar
from ._media import is_media_type, safe_filename

Json = Any
Attachment = tuple[str, str, bytes]  # filename, content type, bytes


def encode_body(
    tool: Tool,
    fields: list[tuple[Argument, Json]],
    arguments: Mapping[str, Json],
    attachments: Mapping[str, Attachment],
    bound: frozenset[str] = frozenset(),
) -> tuple[bytes | None, str | None]:
    body = tool.body
    declared = body.content_type.split(";")[0].strip().lower() if body is not None else ""
    if attachments and (
        body is None or _is_json(declared) or declared == "application/x-www-form-urlencoded"
    ):
        raise refuse("this tool takes no file, so attachments cannot be sent", ErrorCode.BODY_REFUSED)
    if body is None:
        return None, None
    if not body.whole:
        names = {argument.name for argument in tool.arguments if argument.location == "body"}
        unknown = sorted(name for name in attachments if name not in names)
        if unknown:
            raise refuse(
                f"attachments: {unknown[0][:64]!r} is not a field of this tool's body", ErrorCode.BODY_REFUSED
            )
        originals = {argument.name: argument.original for argument in tool.arguments}
        for name in sorted(attachments):
            if name_key(originals.get(name, name)) in bound:
                raise refuse(
                    f"attachments: {format_path((name,))} is set by the gateway and may not be sent",
                    ErrorCode.ARGUMENT_BOUND,
                )
    if body.whole:
        if "body" not in arguments and "body" not in attachments:
            return None, None
        value = arguments.get("body")
        if "body" in attachments:
            _, attachment_type, data = attachments["body"]
            # A type that cannot be a header is never sent as one (the gateway refused it already).
            kind = attachment_type if is_media_type(attachment_type) else "application/octet-stream"
            return data, _concrete(body.content_type, kind)
        if _is_json(declared):
            return dumps_bytes(value), _concrete(body.content_type, "application/json")
        if declared == "application/x-www-form-urlencoded" and isinstance(value, dict):
            return _form([("body", str(k), v) for k, v in value.items()], body.encoding, bound), declared
        argument = tool.argument("body")
        schema = argument.schema if argument is not None else None
        if isinstance(value, str) and isinstance(schema, dict) and schema.get("contentEncoding") == "base64":
            if "contentMediaType" in schema:  # bytes, given as base64: decoded before sending
                return decode_base64(value), _concrete(body.content_type, "application/octet-stream")
            # `format: byte`: the document's body *is* base64 text; checked, sent as given.
            base64_compact(value, "for this body (the document's `format: byte`), sent as given")
            return value.encode("utf-8"), _concrete(body.content_type, "text/plain")
        if isinstance(value, str):
            return value.encode("utf-8"), _concrete(body.content_type, "application/octet-stream")
        return dumps_bytes(value), _concrete(body.content_type, "application/json")
    present = [(argument.original, value) for argument, value in fields]
    files = {name: attachments[name] for name in attachments if name != "body"}
    if not present and not files and not body.required:
        return None, None
    if len(present) + len(files) < body.min_properties:
        _too_few_fields(tool, body.min_properties)
    # A required body is always sent, as `{}` (an empty form) when the agent gave none of its fields.
    if _is_json(declared):
        return dumps_bytes(dict(present)), _concrete(body.content_type, "application/json")
    if declared == "application/x-www-form-urlencoded":
        return _form(
            [(argument.name, argument.original, value) for argument, value in fields], body.encoding, bound
        ), declared
    if declared == "multipart/form-data":
        return _multipart(tool, fields, files, body.encoding)
    return dumps_bytes(dict(present)), "application/json"


def _too_few_fields(tool: Tool, least: int) -> None:
    """A body whose schema wants at least `least` fields (`minProperties`) and got fewer: the API
    would refuse `{}`, so the agent is told which arguments could fill it."""
    names = [argument.name for argument in tool.arguments if argument.location == "body"]
    shown = ", ".join(names[:12]) + (", …" if len(names) > 12 else "")
    count = "one" if least == 1 else str(least)
    raise ArgumentError(
        [f"body: give at least {count} of {shown} (the API refuses a body with fewer fields)"]
    )


def _is_json(content_type: str) -> bool:
    return content_type == "application/json" or content_type.endswith("+json")


def base64_compact(text: str, why: str) -> str:
    """`text` without whitespace, when it is base64 (standard or URL-safe alphabet, padding optional);
    refused otherwise, saying `why` it must be."""
    compact = "".join(text.split())
    if len(compact) % 4 == 1 or not _BASE64.match(compact):
        raise refuse(f"body: must be base64 text {why}", ErrorCode.BODY_NOT_BASE64)
    return compact


def decode_base64(text: str) -> bytes:
    """Base64 text (standard or URL-safe alphabet, padding optional) to bytes; anything else refused."""
    compact = base64_compact(text, "for this binary body (the bytes are decoded before sending)")
    padded = compact.rstrip("=") + "=" * (-len(compact.rstrip("=")) % 4)
    return base64.b64decode(padded.replace("-", "+").replace("_", "/"), validate=True)


def _concrete(declared: str, fallback: str) -> str:
    kind = declared.split(";")[0].strip().lower()
    if "*" in kind or not kind:
        return fallback
    return declared


def _encoding_of(encoding: Json, name: str) -> dict[str, Json]:
    entry = encoding.get(name) if isinstance(encoding, dict) else None
    return entry if isinstance(entry, dict) else {}


def _form(
    fields: list[tuple[str, str, Json]], encoding: Json = None, bound: frozenset[str] = frozenset()
) -> bytes:
    """`(argument, field name, value)` as a form, each field as its `encoding` entry says (style,
    explode, contentType; by default `form` with explode, so an object field spreads its keys into
    field names of their own, which may not be the names of bound fields)."""
    out: list[tuple[str, str]] = []
    for argument, name, value in fields:
        entry = _encoding_of(encoding, name)
        style = entry.get("style") if isinstance(entry.get("style"), str) else None
        explode = entry["explode"] if isinstance(entry.get("explode"), bool) else style in (None, "form")
        content_type = entry.get("contentType") if isinstance(entry.get("contentType"), str) else None
        if style == "deepObject" and isinstance(value, dict | list):
            out.extend(deep_pairs(name, value))
        elif style is None and content_type and isinstance(value, dict | list):
            out.append((name, dumps(value)))  # the encoding gives the field a media type: JSON text
        elif isinstance(value, list):
            items = [scalar(item) for item in value]
            if explode:
                out.extend((name, item) for item in items)
            else:
                out.append((name, _DELIMITERS.get(style or "form", ",").join(items)))
        elif isinstance(value, dict):
            if explode:
                path = (argument, name) if argument == "body" else (argument,)
                _spread_form(path, name, [str(k) for k in value], bound)
                out.extend((str(k), scalar(v)) for k, v in value.items())
            else:
                out.append((name, ",".join(part for k, v in value.items() for part in (str(k), scalar(v)))))
        else:
            out.append((name, scalar(value)))
    return "&".join(f"{quote(k)}={quote(v)}" for k, v in out).encode("ascii")


_DELIMITERS = {"form": ",", "spaceDelimited": " ", "pipeDelimited": "|"}
_BASE64 = re.compile(r"^[A-Za-z0-9+/_-]*={0,2}$")


def _spread_form(path: tuple[str, ...], name: str, keys: list[str], bound: frozenset[str]) -> None:
    if name_key(name) in bound:
        return
    for key in keys:
        if name_key(key) in bound and name_key(key) != name_key(name):
            raise refuse(
                f"{format_path((*path, key))}: would set a body field the gateway sets; it may not be sent",
                ErrorCode.ARGUMENT_BOUND,
            )


def _is_binary(schema: Json) -> bool:
    """A file part: raw content. A `format: byte` / `contentEncoding: base64` string is base64 text,
    which goes as the text part it is."""
    if not isinstance(schema, dict) or "contentEncoding" in schema or schema.get("format") == "byte":
        return False
    return schema.get("format") == "binary" or "contentMediaType" in schema


def _multipart(
    tool: Tool, fields: list[tuple[Argument, Json]], files: Mapping[str, Attachment], encoding: Json = None
) -> tuple[bytes, str]:
    """Each field a part: files from attachments; objects (and arrays of objects) as JSON parts;
    arrays of scalars as one part per item; a part's `contentType` from the `encoding` map."""
    boundary = f"specbridge-{secrets.token_hex(12)}"
    parts: list[tuple[str, str | None, str | None, bytes]] = []  # name, filename, content type, bytes
    originals = {argument.name: argument.original for argument in tool.arguments}
    for name, (filename, content_type, content) in files.items():
        parts.append((originals.get(name, name), filename, content_type, content))
    attached = {originals.get(name, name) for name in files}
    for argument, value in fields:
        name = argument.original
        if name in attached:
            continue
        declared = _encoding_of(encoding, name).get("contentType")
        declared = declared.split(",")[0].strip() if isinstance(declared, str) else None
        if _is_binary(argument.schema) and isinstance(value, str):
            parts.append((name, name, declared or "application/octet-stream", value.encode("utf-8")))
        elif isinstance(value, dict):
            parts.append((name, None, declared or "application/json", dumps_bytes(value)))
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, dict | list):
                    parts.append((name, None, declared or "application/json", dumps_bytes(item)))
                else:
                    parts.append((name, None, declared, scalar(item).encode("utf-8")))
        else:
            parts.append((name, None, declared, scalar(value).encode("utf-8")))
    return _multipart_bytes(parts, boundary), f"multipart/form-data; boundary={boundary}"


def _multipart_bytes(parts: list[tuple[str, str | None, str | None, bytes]], boundary: str) -> bytes:
    """The parts as one body. A file part's name follows the one filename rule (`_media`: its last
    segment, printable only; the field's name when nothing is left); a part's type is sent only when
    the whole value is one well-formed media type; no header value carries a control character."""
    out = bytearray()
    for name, filename, content_type, content in parts:
        disposition = f'form-data; name="{_safe(name)}"'
        if filename is not None:
            disposition += f'; filename="{_safe(safe_filename(filename) or safe_filename(name) or "file")}"'
        out += f"--{boundary}\r\nContent-Disposition: {disposition}\r\n".encode()
        if content_type and is_media_type(content_type):
            out += f"Content-Type: {content_type}\r\n".encode()
        out += b"\r\n" + content + b"\r\n"
    out += f"--{boundary}--\r\n".encode()
    return bytes(out)


def _safe(text: str) -> str:
    """A quoted header parameter as browsers write it (`"` as %22, line breaks as %0D %0A), every
    other control character percent-encoded as well."""
    return _CONTROL.sub(lambda found: f"%{ord(found.group()):02X}", text)


_CONTROL = re.compile(r'["\x00-\x1f\x7f]')
