"""The request the document asks for: required bodies, headers it fixes, `Accept` from its answers,
`encoding` maps and deepObject, base64 binary bodies and literal queries in a path key."""

from __future__ import annotations

import base64
import json
from typing import Any
from urllib.parse import unquote

import anyio

from specbridge._errors import ErrorCode
from specbridge.call import Caller
from tests.call._caller import SECRET, MakeCaller
from tests.support.upstream import Upstream

OK = {"200": {"description": "OK"}}
NESTED = {
    "type": "object",
    "properties": {
        "account_onboarding": {"type": "object", "properties": {"enabled": {"type": "boolean"}}},
    },
}
ITEMS = {"type": "array", "items": {"type": "object", "properties": {"price": {"type": "string"}}}}
STRINGS = {"type": "array", "items": {"type": "string"}}


def _body(content_type: str, schema: dict[str, Any], **media: Any) -> dict[str, Any]:
    return {"required": True, "content": {content_type: {"schema": schema, **media}}}


DOCUMENT: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "Rules", "version": "1"},
    "paths": {
        "/things": {
            "post": {
                "operationId": "createThing",
                "requestBody": _body(
                    "application/json", {"type": "object", "properties": {"n": {"type": "string"}}}
                ),
                "responses": OK,
            }
        },
        "/forms": {
            "post": {
                "operationId": "postForm",
                "requestBody": _body(
                    "application/x-www-form-urlencoded",
                    {"type": "object", "properties": {"n": {"type": "string"}}},
                ),
                "responses": OK,
            }
        },
        "/versioned": {
            "get": {
                "operationId": "getVersioned",
                "parameters": [
                    {
                        "name": "Accept",
                        "in": "header",
                        "required": True,
                        "schema": {"type": "string", "enum": ["application/vnd.x+json;version=2"]},
                    },
                    {"name": "Content-Type", "in": "header", "schema": {"const": "application/json"}},
                    {"name": "Host", "in": "header", "schema": {"const": "evil.example"}},
                ],
                "responses": OK,
            }
        },
        "/report": {
            "get": {
                "operationId": "getReport",
                "responses": {
                    "200": {"description": "OK", "content": {"text/csv": {}, "application/problem+json": {}}}
                },
            }
        },
        "/accounts": {
            "post": {
                "operationId": "createAccount",
                "requestBody": _body(
                    "application/x-www-form-urlencoded",
                    {
                        "type": "object",
                        "properties": {
                            "components": NESTED,
                            "expand": STRINGS,
                            "items": ITEMS,
                            "tags": STRINGS,
                        },
                    },
                    encoding={
                        name: {"style": "deepObject", "explode": True}
                        for name in ("components", "expand", "items")
                    },
                ),
                "responses": OK,
            }
        },
        "/search": {
            "get": {
                "operationId": "search",
                "parameters": [
                    {
                        "name": "filter",
                        "in": "query",
                        "style": "deepObject",
                        "explode": True,
                        "schema": {
                            "type": "object",
                            "properties": {"created": {"type": "object"}, "ids": STRINGS},
                        },
                    },
                    {
                        "name": "words",
                        "in": "query",
                        "style": "spaceDelimited",
                        "explode": False,
                        "schema": STRINGS,
                    },
                    {"name": "expand", "in": "query", "style": "deepObject", "schema": STRINGS},
                    {
                        "name": "color",
                        "in": "query",
                        "style": "pipeDelimited",
                        "explode": False,
                        "schema": {"type": "object"},
                    },
                ],
                "responses": OK,
            }
        },
        "/uploads": {
            "post": {
                "operationId": "upload",
                "requestBody": _body("application/octet-stream", {"type": "string", "format": "binary"}),
                "responses": OK,
            }
        },
        "/parts": {
            "post": {
                "operationId": "postParts",
                "requestBody": _body(
                    "multipart/form-data",
                    {
                        "type": "object",
                        "properties": {"meta": NESTED, "note": {"type": "string"}, "ids": STRINGS},
                    },
                    encoding={"note": {"contentType": "text/markdown"}},
                ),
                "responses": OK,
            }
        },
        "/responses/{id}?beta=true": {
            "get": {
                "operationId": "getResponse",
                "parameters": [
                    {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}},
                    {"name": "limit", "in": "query", "schema": {"type": "integer"}},
                ],
                "responses": OK,
            }
        },
    },
}


async def _send(caller: Caller, tool: str, arguments: dict[str, Any]) -> Any:
    with anyio.fail_after(10):
        return await caller.call(tool, arguments)


async def test_a_required_object_body_is_sent_as_an_empty_object_when_no_field_is_given(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    result = await _send(make_caller(document=DOCUMENT), "createThing", {})
    assert not result.is_error
    request = upstream.requests[-1]
    assert request.body == b"{}"
    assert request.headers["content-type"] == "application/json"


async def test_a_required_form_body_is_sent_empty_with_its_content_type(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    await _send(make_caller(document=DOCUMENT), "postForm", {})
    request = upstream.requests[-1]
    assert request.method == "POST"
    assert request.body == b""
    assert request.headers["content-type"] == "application/x-www-form-urlencoded"
    assert request.headers["content-length"] == "0"


async def test_headers_the_document_fixes_are_sent_but_never_host_and_the_credential_stays_last(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    await _send(make_caller(document=DOCUMENT), "getVersioned", {})
    request = upstream.requests[-1]
    assert request.headers["accept"] == "application/vnd.x+json;version=2"
    assert request.headers["content-type"] == "application/json"
    assert request.headers["host"] == upstream.address
    assert request.raw_headers[-1] == ("Authorization", f"Bearer {SECRET}")


async def test_accept_is_built_from_the_operation_s_answers_json_first(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    await _send(make_caller(document=DOCUMENT), "getReport", {})
    assert upstream.requests[-1].headers["accept"] == "application/problem+json, text/csv;q=0.9, */*;q=0.8"


async def test_form_fields_follow_the_encoding_map_nested_objects_and_arrays_as_deep_objects(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    arguments = {
        "components": {"account_onboarding": {"enabled": True}},
        "expand": ["a", "b"],
        "items": [{"price": "p1"}, {"price": "p2"}],
        "tags": ["x", "y"],
    }
    await _send(make_caller(document=DOCUMENT), "createAccount", arguments)
    body = unquote(upstream.requests[-1].body.decode())
    assert body.split("&") == [
        "components[account_onboarding][enabled]=true",
        "expand[]=a",
        "expand[]=b",
        "items[0][price]=p1",
        "items[1][price]=p2",
        "tags=x",
        "tags=y",
    ]


async def test_query_deep_objects_nest_objects_and_arrays_and_delimited_styles_join(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    arguments = {
        "filter": {"created": {"gte": 5}, "ids": ["i1"]},
        "words": ["a", "b"],
        "expand": ["data"],
        "color": {"R": 1, "G": 2},
    }
    await _send(make_caller(document=DOCUMENT), "search", arguments)
    target = unquote(upstream.requests[-1].target)
    assert (
        target == "/v1/search?filter[created][gte]=5&filter[ids][]=i1&words=a b&expand[]=data&color=R|1|G|2"
    )


async def test_a_binary_body_is_base64_text_decoded_before_sending(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    await _send(make_caller(document=DOCUMENT), "upload", {"body": base64.b64encode(b"\x00\xffhi").decode()})
    request = upstream.requests[-1]
    assert request.body == b"\x00\xffhi"
    assert request.headers["content-type"] == "application/octet-stream"


async def test_a_binary_body_that_is_not_base64_is_refused_and_nothing_is_sent(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    result = await _send(make_caller(document=DOCUMENT), "upload", {"body": "not base64!"})
    assert result.is_error
    assert result.code == ErrorCode.BODY_NOT_BASE64
    assert upstream.requests == []


async def test_multipart_objects_go_as_json_parts_and_the_encoding_map_sets_a_part_s_type(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    arguments = {"meta": {"account_onboarding": {"enabled": True}}, "note": "# hi", "ids": ["a", "b"]}
    await _send(make_caller(document=DOCUMENT), "postParts", arguments)
    request = upstream.requests[-1]
    boundary = request.headers["content-type"].split("boundary=", 1)[1]
    parts = [part for part in request.body.split(f"--{boundary}".encode()) if part.strip(b"-\r\n")]
    heads = [part.split(b"\r\n\r\n", 1)[0].decode().strip() for part in parts]
    payloads = [part.split(b"\r\n\r\n", 1)[1][:-2] for part in parts]
    assert heads == [
        'Content-Disposition: form-data; name="meta"\r\nContent-Type: application/json',
        'Content-Disposition: form-data; name="note"\r\nContent-Type: text/markdown',
        'Content-Disposition: form-data; name="ids"',
        'Content-Disposition: form-data; name="ids"',
    ]
    assert json.loads(payloads[0]) == arguments["meta"]
    assert payloads[1:] == [b"# hi", b"a", b"b"]


async def test_a_literal_query_in_the_path_key_is_sent_and_the_path_alone_is_templated(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    await _send(make_caller(document=DOCUMENT), "getResponse", {"id": "r1", "limit": 2})
    assert upstream.requests[-1].target == "/v1/responses/r1?beta=true&limit=2"


async def test_a_base64_multipart_field_goes_as_a_text_part_and_a_binary_one_as_a_file_part(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    schema = {
        "type": "object",
        "properties": {
            "sig": {"type": "string", "format": "byte"},
            "file": {"type": "string", "format": "binary"},
        },
    }
    document = {
        **DOCUMENT,
        "paths": {
            "/p": {
                "post": {
                    "operationId": "p",
                    "requestBody": _body("multipart/form-data", schema),
                    "responses": OK,
                }
            }
        },
    }
    await _send(make_caller(document=document), "p", {"sig": "YWJj", "file": "raw"})
    body = upstream.requests[-1].body
    assert b'name="sig"\r\n\r\nYWJj\r\n' in body
    assert b'name="file"; filename="file"\r\nContent-Type: application/octet-stream\r\n\r\nraw\r\n' in body


async def test_a_fixed_content_type_names_a_json_body_but_never_replaces_a_form_s(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    fixed = {"name": "Content-Type", "in": "header", "schema": {"const": "application/vnd.x+json; version=2"}}
    paths = {
        f"/{kind}": {
            "post": {
                "operationId": kind,
                "parameters": [fixed],
                "requestBody": _body(media, {"type": "object", "properties": {"n": {"type": "string"}}}),
                "responses": OK,
            }
        }
        for kind, media in (("json", "application/json"), ("form", "application/x-www-form-urlencoded"))
    }
    caller = make_caller(document={**DOCUMENT, "paths": paths})
    await _send(caller, "json", {"n": "x"})
    assert upstream.requests[-1].headers["content-type"] == "application/vnd.x+json; version=2"
    await _send(caller, "form", {"n": "x"})
    assert upstream.requests[-1].headers["content-type"] == "application/x-www-form-urlencoded"
