"""`call/_body.py`: request bodies as the operation's media type says: JSON, form, multipart (with
attachments) and raw bytes."""

from __future__ import annotations

import json

import pytest

from specbridge._errors import ErrorCode
from tests.call._caller import MakeCaller
from tests.call._caller import call as _call
from tests.support.upstream import Upstream


async def test_a_json_body_is_sent_with_its_content_type(make_caller: MakeCaller, upstream: Upstream) -> None:
    await _call(
        make_caller(), "createOrder", {"shopId": "s1", "items": [{"sku": "a", "qty": 2}], "currency": "EUR"}
    )
    request = upstream.requests[-1]
    assert request.method == "POST" and request.path == "/v1/shops/s1/orders"
    assert request.headers["content-type"] == "application/json"
    assert json.loads(request.body) == {"items": [{"sku": "a", "qty": 2}], "currency": "EUR"}


async def test_a_form_body_is_urlencoded(make_caller: MakeCaller, upstream: Upstream) -> None:
    await _call(make_caller(), "sendForm", {"name": "a b&c", "colors": ["red", "blue"]})
    request = upstream.requests[-1]
    assert request.headers["content-type"] == "application/x-www-form-urlencoded"
    assert request.body == b"name=a%20b%26c&colors=red&colors=blue"


async def test_a_multipart_body_sends_a_string_for_a_binary_field_as_the_file(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    await _call(make_caller(), "upload", {"file": "file content", "caption": "hi"})
    request = upstream.requests[-1]
    assert request.headers["content-type"].startswith("multipart/form-data; boundary=")
    assert b'name="file"; filename="file"' in request.body and b"file content" in request.body
    assert b'name="caption"' in request.body


async def test_a_multipart_body_takes_attachment_bytes(make_caller: MakeCaller, upstream: Upstream) -> None:
    await _call(
        make_caller(),
        "upload",
        {"caption": "hi"},
        attachments={"file": ("cat.png", "image/png", b"\x89PNG\r\n")},
    )
    body = upstream.requests[-1].body
    assert b'filename="cat.png"' in body and b"Content-Type: image/png" in body and b"\x89PNG\r\n" in body


async def test_a_raw_body_is_sent_as_is(make_caller: MakeCaller, upstream: Upstream) -> None:
    await _call(make_caller(), "putRaw", {"body": "a,b\n1,2\n"})
    request = upstream.requests[-1]
    assert request.headers["content-type"] == "text/csv" and request.body == b"a,b\n1,2\n"


@pytest.mark.parametrize(("tool", "name"), [("createOrder", "file"), ("ping", "file"), ("upload", "nofield")])
async def test_an_attachment_for_a_tool_or_field_that_takes_no_file_is_refused(
    make_caller: MakeCaller, upstream: Upstream, tool: str, name: str
) -> None:
    arguments = {"shopId": "s", "items": []} if tool == "createOrder" else {}
    result = await _call(make_caller(), tool, arguments, attachments={name: ("a.txt", "text/plain", b"x")})
    assert result.is_error and result.code == ErrorCode.BODY_REFUSED  # type: ignore[attr-defined]
    assert upstream.requests == []


async def test_an_attachment_cannot_replace_a_bound_multipart_field(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    result = await _call(
        make_caller(),
        "upload",
        {},
        client_bindings={"body.caption": "fixed"},
        attachments={"caption": ("c.txt", "text/plain", b"victim")},
    )
    assert result.is_error and result.code == ErrorCode.ARGUMENT_BOUND, result.text
    assert upstream.requests == []


BYTES_DOCUMENT = {
    "openapi": "3.0.3",
    "info": {"title": "Bytes", "version": "1"},
    "paths": {
        path: {
            "post": {
                "operationId": name,
                "requestBody": {"required": True, "content": {kind: {"schema": schema}}},
                "responses": {"200": {"description": "ok"}},
            }
        }
        for path, name, kind, schema in [
            ("/blobs", "putBlob", "application/octet-stream", {"type": "string", "format": "byte"}),
            ("/notes", "putNote", "text/plain", {"type": "string", "format": "byte"}),
            ("/raw", "putRaw", "application/octet-stream", {"type": "string", "format": "binary"}),
        ]
    },
}


@pytest.mark.parametrize(
    ("tool", "content_type"), [("putBlob", "application/octet-stream"), ("putNote", "text/plain")]
)
async def test_a_format_byte_body_is_base64_text_and_goes_as_the_text_given(
    make_caller: MakeCaller, upstream: Upstream, tool: str, content_type: str
) -> None:
    result = await _call(make_caller(document=BYTES_DOCUMENT), tool, {"body": "AP9oaQ=="})
    assert not result.is_error, result.text
    request = upstream.requests[-1]
    assert request.body == b"AP9oaQ==" and request.headers["content-type"] == content_type


async def test_a_format_byte_body_that_is_not_base64_is_refused_and_nothing_is_sent(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    result = await _call(make_caller(document=BYTES_DOCUMENT), "putBlob", {"body": "not base64!"})
    assert result.code == ErrorCode.BODY_NOT_BASE64 and "format: byte" in result.text
    assert upstream.requests == []


async def test_a_format_binary_body_is_still_decoded_to_its_bytes(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    await _call(make_caller(document=BYTES_DOCUMENT), "putRaw", {"body": "AP9oaQ=="})
    assert upstream.requests[-1].body == b"\x00\xffhi"


SETTINGS_DOCUMENT = {
    "openapi": "3.0.3",
    "info": {"title": "Settings", "version": "1"},
    "paths": {
        "/users/{id}/settings": {
            "patch": {
                "operationId": "updateSettings",
                "parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}],
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/json": {
                            "schema": {
                                "type": "object",
                                "minProperties": 1,
                                "properties": {"theme": {"type": "string"}, "language": {"type": "string"}},
                            }
                        }
                    },
                },
                "responses": {"200": {"description": "ok"}},
            }
        }
    },
}


async def test_a_body_that_needs_a_field_is_refused_empty_naming_the_arguments_that_fill_it(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    caller = make_caller(document=SETTINGS_DOCUMENT)
    empty = await _call(caller, "updateSettings", {"id": "u1"})
    assert empty.code == ErrorCode.ARGUMENTS_INVALID
    assert "body: give at least one of theme, language" in empty.text
    assert upstream.requests == []
    done = await _call(caller, "updateSettings", {"id": "u1", "theme": "dark"})
    assert not done.is_error and json.loads(upstream.requests[-1].body) == {"theme": "dark"}
