"""Red-team findings against PRODUCT §4: each test here failed before its fix. Real loopback upstream
for everything that crosses a socket; a fake resolver where an address form is the point."""

from __future__ import annotations

import base64
import json
import re
from typing import Any
from urllib.parse import quote

import anyio
import pytest

from specbridge._errors import ErrorCode
from specbridge.config import ToolConfig
from tests.call.conftest import SECRET, MakeCaller
from tests.support.upstream import RecordedRequest, Reply, Upstream, text_response


def _document(paths: dict[str, Any]) -> dict[str, Any]:
    return {"openapi": "3.1.0", "info": {"title": "Red team", "version": "1"}, "paths": paths}


OK = {"200": {"description": "OK"}}

# A search operation whose object parameters use the OpenAPI defaults for query and cookie
# (style form, explode true): each key of the object becomes a parameter / cookie of its own.
SEARCH = _document(
    {
        "/search": {
            "get": {
                "operationId": "search",
                "parameters": [
                    {"name": "filter", "in": "query", "schema": {"type": "object"}},
                    {"name": "tenant", "in": "query", "schema": {"type": "string"}},
                    {"name": "prefs", "in": "cookie", "schema": {"type": "object"}},
                    {"name": "account", "in": "cookie", "schema": {"type": "string"}},
                ],
                "responses": OK,
            }
        },
        "/forms": {
            "post": {
                "operationId": "sendForm",
                "requestBody": {
                    "content": {
                        "application/x-www-form-urlencoded": {
                            "schema": {
                                "type": "object",
                                "properties": {
                                    "customer_id": {"type": "string"},
                                    "meta": {"type": "object"},
                                },
                            }
                        }
                    }
                },
                "responses": OK,
            }
        },
    }
)


async def _call(caller: Any, tool: str, arguments: dict[str, Any], **kwargs: Any) -> Any:
    with anyio.fail_after(10):
        return await caller.call(tool, arguments, **kwargs)


# -- F1: exploded object keys naming the credential or a bound parameter ---------------------------


async def test_an_exploded_query_object_cannot_name_the_credentials_query_parameter(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    caller = make_caller(document=SEARCH, auth_type="query", auth_name="api_key")
    result = await _call(caller, "search", {"filter": {"api_key": "attacker-key"}})
    assert result.is_error and result.code == ErrorCode.HEADER_REFUSED, result.text
    assert upstream.requests == []


async def test_an_exploded_query_object_cannot_override_a_bound_query_parameter(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    caller = make_caller(document=SEARCH, tools={"search": ToolConfig(bindings={"query.tenant": "mine"})})
    result = await _call(caller, "search", {"filter": {"tenant": "victim"}})
    assert result.is_error and result.code == ErrorCode.ARGUMENT_BOUND, result.text
    assert "victim" not in result.text
    assert upstream.requests == []


async def test_an_exploded_query_object_cannot_override_an_undeclared_query_binding(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    caller = make_caller(document=SEARCH)
    result = await _call(
        caller, "search", {"filter": {"customer": "victim"}}, client_bindings={"query.customer": "c-1"}
    )
    assert result.is_error and result.code == ErrorCode.ARGUMENT_BOUND, result.text
    assert upstream.requests == []


async def test_an_exploded_query_object_with_ordinary_keys_is_still_sent(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    caller = make_caller(document=SEARCH, auth_type="query", auth_name="api_key")
    result = await _call(caller, "search", {"filter": {"color": "red", "size": "L"}})
    assert not result.is_error, result.text
    assert upstream.requests[-1].query == [("color", "red"), ("size", "L"), ("api_key", SECRET)]


async def test_an_exploded_cookie_object_cannot_name_the_credentials_cookie(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    caller = make_caller(document=SEARCH, auth_type="cookie", auth_name="sid")
    result = await _call(caller, "search", {"prefs": {"sid": "attacker-session"}})
    assert result.is_error and result.code == ErrorCode.HEADER_REFUSED, result.text
    assert upstream.requests == []


async def test_an_exploded_cookie_object_cannot_override_a_bound_cookie(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    caller = make_caller(document=SEARCH)
    result = await _call(
        caller, "search", {"prefs": {"account": "victim"}}, client_bindings={"cookie.account": "acct-1"}
    )
    assert result.is_error and result.code == ErrorCode.ARGUMENT_BOUND, result.text
    assert upstream.requests == []


async def test_an_exploded_form_field_cannot_override_a_bound_body_field(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    caller = make_caller(document=SEARCH)
    result = await _call(
        caller,
        "sendForm",
        {"meta": {"customer_id": "victim"}},
        client_bindings={"body.customer_id": "c-1"},
    )
    assert result.is_error and result.code == ErrorCode.ARGUMENT_BOUND, result.text
    assert upstream.requests == []


# -- F2: the credential cut in half by the 1 MB limit -----------------------------------------------


async def test_a_credential_cut_by_the_read_limit_does_not_leak_its_start(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    from specbridge.call._send import READ_LIMIT

    def padded(request: RecordedRequest) -> Reply:
        token = request.headers["authorization"].removeprefix("Bearer ")
        cut = len(token) - 3  # all but the last 3 characters fall inside the limit
        return text_response("x" * (READ_LIMIT - cut) + token + "y" * 100)

    upstream.route("/v1/ping", padded)
    result = await _call(make_caller(), "ping", {})
    assert not result.is_error
    assert SECRET[:8] not in result.text
    assert "[credential]" in result.text


# -- F3: a declared charset that hides the credential's bytes from the redactor ----------------------


@pytest.mark.parametrize("charset", ["utf-16-le", "utf-16", "cp500"])
async def test_a_credential_echoed_under_a_foreign_charset_is_redacted(
    make_caller: MakeCaller, upstream: Upstream, charset: str
) -> None:
    def echo(request: RecordedRequest) -> Reply:
        body = ("token: " + request.headers["authorization"] + "\n").encode("utf-8")
        return Reply(200, [("Content-Type", f"text/plain; charset={charset}")], body)

    upstream.route("/v1/ping", echo)
    result = await _call(make_caller(), "ping", {})
    decoded_back = result.text.encode(charset, "replace")
    assert SECRET[:12].encode() not in decoded_back
    assert SECRET[:12] not in result.text


async def test_a_credential_echoed_in_an_error_under_a_foreign_charset_is_redacted(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    def echo(request: RecordedRequest) -> Reply:
        body = ("denied: " + request.headers["authorization"]).encode("utf-8")
        return Reply(403, [("Content-Type", "text/plain; charset=utf-16-le")], body)

    upstream.route("/v1/ping", echo)
    result = await _call(make_caller(), "ping", {})
    assert result.is_error
    assert SECRET[:12].encode() not in result.text.encode("utf-16-le", "replace")


# -- F4: forms the redactor did not know ------------------------------------------------------------

NUMERIC_SECRET = "4242424242424242"


async def test_a_numeric_credential_echoed_as_a_json_number_is_redacted(
    make_caller: MakeCaller, upstream: Upstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SPECBRIDGE_TEST_SECRET", NUMERIC_SECRET)

    def echo(request: RecordedRequest) -> Reply:
        value = int(request.headers["x-api-key"])
        return Reply(200, [("Content-Type", "application/json")], json.dumps({"key": value}).encode())

    upstream.route("/v1/ping", echo)
    caller = make_caller(auth_type="header", auth_name="X-Api-Key")
    result = await _call(caller, "ping", {})
    assert NUMERIC_SECRET not in result.text
    assert NUMERIC_SECRET not in json.dumps(result.structured)


@pytest.mark.parametrize(
    "form",
    [
        pytest.param(lambda s: json.dumps(s)[1:-1].replace("/", "\\/"), id="json-escaped-slash"),
        pytest.param(lambda s: "".join(f"\\u{ord(c):04x}" for c in s), id="json-unicode-escapes"),
        pytest.param(
            lambda s: re.sub("%[0-9A-F]{2}", lambda m: m.group().lower(), quote(s, safe="")),
            id="lower-case-percent-encoding",
        ),
        pytest.param(
            lambda s: base64.b64encode(b"Authorization: Bearer " + s.encode()).decode(),
            id="base64-of-a-longer-text",
        ),
        pytest.param(lambda s: base64.b64encode(b"x" + s.encode()).decode(), id="base64-offset-1"),
        pytest.param(lambda s: base64.b64encode(b"xy" + s.encode()).decode(), id="base64-offset-2"),
    ],
)
async def test_an_echoed_credential_in_another_common_encoding_is_redacted(
    make_caller: MakeCaller, upstream: Upstream, form: Any
) -> None:
    # Text (not parsed JSON): e.g. a JSON answer over the 1 MB limit, or a log line echoed as text.
    upstream.route("/v1/ping", lambda request: text_response(f"seen: {form(SECRET)} end"))
    result = await _call(make_caller(), "ping", {})
    assert form(SECRET) not in result.text
    assert "[credential]" in result.text


# -- F5: a hostile document's path template --------------------------------------------------------

HOSTILE_TEMPLATES = [
    "/x/..;/admin",  # Tomcat/Jetty: `..;` is `..`
    "/x/\\..\\admin",  # servers that read `\` as `/` (IIS, WHATWG URL parsers)
    "/x/..\\admin",
    "/x/%2e%2e%5cadmin",
    "/x/%2e%2e%2fadmin",  # servers that decode `%2F` before routing
    "/x/..%2fadmin",
    "/x/%252e%252e/admin",  # double decoding
    "/x/%c0%ae%c0%ae/admin",  # overlong UTF-8 dots
    "/x/\u2025/admin",  # TWO DOT LEADER, `..` after NFKC
    "/x/\uff0e\uff0e/admin",  # full-width dots
]


@pytest.mark.parametrize("template", HOSTILE_TEMPLATES)
async def test_a_path_template_that_climbs_out_of_the_base_path_is_refused(
    make_caller: MakeCaller, upstream: Upstream, template: str
) -> None:
    document = _document({template: {"get": {"operationId": "climb", "responses": OK}}})
    result = await _call(make_caller(document=document), "climb", {})
    assert result.is_error and result.code == ErrorCode.PATH_REFUSED, result.text
    assert upstream.requests == []


async def test_a_path_template_cannot_set_the_credentials_query_parameter(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    document = _document(
        {
            "/items?api_key={key}": {
                "get": {
                    "operationId": "listItems",
                    "parameters": [
                        {"name": "key", "in": "path", "required": True, "schema": {"type": "string"}}
                    ],
                    "responses": OK,
                }
            }
        }
    )
    caller = make_caller(document=document, auth_type="query", auth_name="api_key")
    result = await _call(caller, "listItems", {"key": "attacker-key"})
    assert result.is_error and result.code == ErrorCode.HEADER_REFUSED, result.text
    assert upstream.requests == []


@pytest.mark.parametrize("template", ["/files/{name}.json", "/a;v=1/b", "/x/..data/y", "/x/.well-known/y"])
async def test_an_ordinary_path_template_is_still_called(
    make_caller: MakeCaller, upstream: Upstream, template: str
) -> None:
    parameters = (
        [{"name": "name", "in": "path", "required": True, "schema": {"type": "string"}}]
        if "{" in template
        else []
    )
    document = _document(
        {template: {"get": {"operationId": "fine", "parameters": parameters, "responses": OK}}}
    )
    arguments = {"name": "report"} if parameters else {}
    result = await _call(make_caller(document=document), "fine", arguments)
    assert not result.is_error, result.text
    assert upstream.requests[-1].path.startswith("/v1/")


async def test_a_fragment_in_a_path_template_does_not_swallow_the_query_and_credential(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    # Real documents (Box) write `/files/{id}#get_shared_link` to tell operations apart.
    document = _document(
        {
            "/files/{id}#get_shared_link": {
                "get": {
                    "operationId": "getLink",
                    "parameters": [
                        {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}},
                        {"name": "fields", "in": "query", "schema": {"type": "string"}},
                    ],
                    "responses": OK,
                }
            }
        }
    )
    caller = make_caller(document=document, auth_type="query", auth_name="api_key")
    result = await _call(caller, "getLink", {"id": "7", "fields": "shared_link"})
    assert not result.is_error, result.text
    assert upstream.requests[-1].path == "/v1/files/7"
    assert upstream.requests[-1].query == [("fields", "shared_link"), ("api_key", SECRET)]


# -- F6: the credential inside an answer handed on as image content -------------------------------


async def test_a_credential_inside_an_image_answer_is_not_handed_on(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    # An echo endpoint whose content type the caller picks (httpbin's /response-headers, say).
    def echo(request: RecordedRequest) -> Reply:
        body = b"\x89PNG\r\n\x1a\n" + request.headers["authorization"].encode() + b"\0" * 16
        return Reply(200, [("Content-Type", "image/png")], body)

    upstream.route("/v1/ping", echo)
    result = await _call(make_caller(), "ping", {})
    assert result.image is None or SECRET.encode() not in result.image.data
    assert SECRET not in result.text


# -- F7: a lone surrogate (JSON `"\ud800"`) crashed the build instead of being refused ---------------


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("getItem", {"itemId": "\ud800"}),
        ("getItem", {"itemId": "1", "tag": ["ok", "\udfff"]}),
        ("getItem", {"itemId": "1", "session": "a\ud800b"}),
        ("createOrder", {"shopId": "1", "items": [], "nested": {"\ud800": 1}}),
        ("createOrder", {"shopId": "1", "items": [{"sku": "\udc00", "qty": 1}]}),
    ],
)
async def test_a_lone_surrogate_is_an_argument_error_not_a_crash(
    make_caller: MakeCaller, upstream: Upstream, tool: str, arguments: dict[str, Any]
) -> None:
    result = await _call(make_caller(), tool, arguments)
    assert result.is_error and result.code == ErrorCode.ARGUMENTS_INVALID, result.text
    assert "surrogate" in result.text or "Unicode" in result.text
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
