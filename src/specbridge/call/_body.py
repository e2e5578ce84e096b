"""Request bodies: JSON, form-urlencoded, multipart (file parts from attachments) and raw bytes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx

from .._errors import ErrorCode
from .._json import dumps_bytes
from ..tools import Argument, Tool
from ._check import format_path
from ._encode import name_key, quote, refuse, scalar

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
            return data, _concrete(body.content_type, attachment_type)
        if _is_json(declared):
            return dumps_bytes(value), _concrete(body.content_type, "application/json")
        if declared == "application/x-www-form-urlencoded" and isinstance(value, dict):
            return _form([("body", str(k), v) for k, v in value.items()], bound), declared
        if isinstance(value, str):
            return value.encode("utf-8"), _concrete(body.content_type, "application/octet-stream")
        return dumps_bytes(value), _concrete(body.content_type, "application/json")
    present = [(argument.original, value) for argument, value in fields]
    files = {name: attachments[name] for name in attachments if name != "body"}
    if not present and not files:
        return None, None
    if _is_json(declared):
        return dumps_bytes(dict(present)), _concrete(body.content_type, "application/json")
    if declared == "application/x-www-form-urlencoded":
        return _form(
            [(argument.name, argument.original, value) for argument, value in fields], bound
        ), declared
    if declared == "multipart/form-data":
        return _multipart(tool, fields, files)
    return dumps_bytes(dict(present)), "application/json"


def _is_json(content_type: str) -> bool:
    return content_type == "application/json" or content_type.endswith("+json")


def _concrete(declared: str, fallback: str) -> str:
    kind = declared.split(";")[0].strip().lower()
    if "*" in kind or not kind:
        return fallback
    return declared


def _form(fields: list[tuple[str, str, Json]], bound: frozenset[str] = frozenset()) -> bytes:
    """`(argument, field name, value)` as a form; an object field spreads its keys into field names
    of their own, which may not be the names of bound fields."""
    out: list[tuple[str, str]] = []
    for argument, name, value in fields:
        if isinstance(value, list):
            out.extend((name, scalar(item)) for item in value)
        elif isinstance(value, dict):
            path = (argument, name) if argument == "body" else (argument,)
            _spread_form(path, name, [str(k) for k in value], bound)
            out.extend((str(k), scalar(v)) for k, v in value.items())
        else:
            out.append((name, scalar(value)))
    return "&".join(f"{quote(k)}={quote(v)}" for k, v in out).encode("ascii")


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
    if not isinstance(schema, dict):
        return False
    return (
        schema.get("format") in ("binary", "byte")
        or "contentMediaType" in schema
        or "contentEncoding" in schema
    )


def _multipart(
    tool: Tool, fields: list[tuple[Argument, Json]], files: Mapping[str, Attachment]
) -> tuple[bytes, str]:
    data: dict[str, Any] = {}
    parts: list[tuple[str, tuple[str, bytes, str]]] = []
    originals = {argument.name: argument.original for argument in tool.arguments}
    for name, (filename, content_type, content) in files.items():
        parts.append((originals.get(name, name), (filename, content, content_type)))
    attached = {originals.get(name, name) for name in files}
    for argument, value in fields:
        if argument.original in attached:
            continue
        if _is_binary(argument.schema) and isinstance(value, str):
            parts.append(
                (argument.original, (argument.original, value.encode("utf-8"), "application/octet-stream"))
            )
        elif isinstance(value, list):
            data[argument.original] = [scalar(item) for item in value]
        else:
            data[argument.original] = scalar(value)
    request = httpx.Request("POST", "http://multipart.invalid/", data=data, files=parts or None)
    content = request.read()
    if not parts:
        # httpx only writes multipart when a file is present; form fields alone are still multipart here.
        request = httpx.Request(
            "POST",
            "http://multipart.invalid/",
            data=data,
            files=[("", ("", b"", "application/octet-stream"))],
        )
        boundary = request.headers["Content-Type"].split("boundary=", 1)[1]
        content = _multipart_fields(data, boundary)
        return content, f"multipart/form-data; boundary={boundary}"
    return content, request.headers["Content-Type"]


def _multipart_fields(data: Mapping[str, Any], boundary: str) -> bytes:
    out = bytearray()
    for name, value in data.items():
        for item in value if isinstance(value, list) else [value]:
            safe_name = name.replace('"', "%22").replace("\r", "%0D").replace("\n", "%0A")
            out += f'--{boundary}\r\nContent-Disposition: form-data; name="{safe_name}"\r\n\r\n'.encode()
            out += str(item).encode("utf-8") + b"\r\n"
    out += f"--{boundary}--\r\n".encode()
    return bytes(out)
