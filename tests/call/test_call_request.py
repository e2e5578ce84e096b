"""What arrives upstream: URL, serialisation, our headers, the credential, bindings and bodies."""

from __future__ import annotations

import base64
import json
import socket
from pathlib import Path

import anyio
import httpx
import pytest

from specbridge._errors import CallError, ConfigError, ErrorCode, UpstreamError
from specbridge.call import Caller, build_request
from specbridge.call._build import BuiltRequest
from specbridge.call._send import _next_request
from specbridge.config import ApiConfig, AuthConfig, Secret, ToolConfig, config_from_data
from tests.call.conftest import SECRET, MakeCaller, api_config, toolset_for
from tests.support.upstream import Upstream, json_response, redirect, text_response


async def _call(caller: Caller, tool: str, arguments: dict[str, object], **kwargs: object) -> object:
    with anyio.fail_after(10):
        return await caller.call(tool, arguments, **kwargs)  # type: ignore[arg-type]


async def test_query_header_and_cookie_arguments_are_serialised_per_style(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    await _call(
        make_caller(),
        "getItem",
        {
            "itemId": "42",
            "verbose": True,
            "tag": ["a", "b"],
            "ids": [1, 2],
            "filter": {"color": "red"},
            "X-Trace-Note": "note",
            "session": "abc",
        },
    )
    request = upstream.requests[-1]
    assert request.target == "/v1/items/42?verbose=true&tag=a&tag=b&ids=1%7C2&filter%5Bcolor%5D=red"
    assert request.headers["x-trace-note"] == "note"
    assert request.headers["cookie"] == "session=abc"


async def test_a_whole_number_written_as_a_float_is_sent_as_an_integer(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    await _call(make_caller(), "getItem", {"itemId": "42", "ids": [1.0, 2]})
    assert upstream.requests[-1].target == "/v1/items/42?ids=1%7C2"


async def test_our_own_headers_are_sent_and_the_credential_goes_last_exactly_once(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    await _call(make_caller(), "ping", {})
    request = upstream.requests[-1]
    assert request.headers["user-agent"] == "specbridge/0.1.0"
    assert request.headers["x-specbridge-operation"] == "ping"
    assert request.headers["accept"].startswith("application/json")
    names = [name.lower() for name, _ in request.raw_headers]
    assert names.count("authorization") == 1
    assert request.raw_headers[-1] == ("Authorization", f"Bearer {SECRET}")


@pytest.mark.parametrize(
    ("auth_type", "auth_name", "where"),
    [
        ("bearer", "", ("header", "authorization", f"Bearer {SECRET}")),
        ("basic", "", ("header", "authorization", "Basic " + base64.b64encode(SECRET.encode()).decode())),
        ("header", "X-Api-Token", ("header", "x-api-token", SECRET)),
        ("query", "api_key", ("query", "api_key", SECRET)),
        ("cookie", "sid", ("cookie", "sid", SECRET)),
    ],
)
async def test_each_auth_type_puts_the_credential_where_it_belongs(
    make_caller: MakeCaller, upstream: Upstream, auth_type: str, auth_name: str, where: tuple[str, str, str]
) -> None:
    await _call(
        make_caller(auth_type=auth_type, auth_name=auth_name), "getItem", {"itemId": "1", "session": "s"}
    )
    request = upstream.requests[-1]
    location, name, value = where
    if location == "header":
        assert request.headers[name] == value
    elif location == "query":
        assert request.query == [(name, value)]
    else:
        assert (
            request.headers["cookie"]
            == f"session=s; sid={SECRET.replace('/', '%2F').replace('+', '%2B').replace('=', '%3D')}"
        )


async def test_auth_none_sends_no_credential(make_caller: MakeCaller, upstream: Upstream) -> None:
    await _call(make_caller(auth_type="none"), "ping", {})
    assert "authorization" not in upstream.requests[-1].headers


async def test_a_per_client_secret_is_chosen_by_its_id(
    make_caller: MakeCaller, upstream: Upstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SHOP_B_TOKEN", "shop-b-token")
    caller = make_caller(secrets={"shop-b": Secret("env:SHOP_B_TOKEN")})
    await _call(caller, "ping", {}, secret_id="shop-b")
    assert upstream.requests[-1].headers["authorization"] == "Bearer shop-b-token"


async def test_an_unknown_secret_id_is_an_error_and_nothing_is_sent(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    result = await _call(make_caller(), "ping", {}, secret_id="nobody")
    assert result.is_error and result.code == ErrorCode.SECRET_UNKNOWN  # type: ignore[attr-defined]
    assert upstream.requests == []


async def test_a_secret_that_cannot_be_read_is_an_error_naming_no_secret(upstream: Upstream) -> None:
    api = api_config(
        upstream.url,
        allow=(upstream.address,),
        auth=AuthConfig(type="bearer", secret=Secret("env:NOT_SET_ANYWHERE")),
    )
    caller = Caller(api, toolset_for())
    result = await _call(caller, "ping", {})
    await caller.aclose()
    assert result.is_error and result.code == ErrorCode.SECRET_UNAVAILABLE  # type: ignore[attr-defined]
    assert "NOT_SET_ANYWHERE" not in result.text  # type: ignore[attr-defined]
    assert upstream.requests == []


async def test_an_unknown_tool_raises_tool_unknown(make_caller: MakeCaller) -> None:
    with pytest.raises(CallError) as caught:
        await make_caller().call("noSuchTool", {})
    assert caught.value.code == ErrorCode.TOOL_UNKNOWN


async def test_invalid_arguments_name_every_path_and_send_nothing(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    result = await _call(
        make_caller(),
        "createOrder",
        {"shopId": "s", "items": [{"sku": "a", "qty": 1}, {}, {"sku": "b", "qty": 0}]},
    )
    assert result.code == ErrorCode.ARGUMENTS_INVALID  # type: ignore[attr-defined]
    assert result.text == (  # type: ignore[attr-defined]
        "invalid arguments: items[1].qty: is required; items[1].sku: is required; items[2].qty: is below the minimum"
    )
    assert upstream.requests == []


async def test_pattern_is_left_to_the_api(make_caller: MakeCaller, upstream: Upstream) -> None:
    result = await _call(make_caller(), "createOrder", {"shopId": "s", "items": [], "note": "NOT LOWER"})
    assert not result.is_error  # type: ignore[attr-defined]


async def test_null_optional_arguments_from_strict_mode_are_dropped(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    result = await _call(
        make_caller(), "getItem", {"itemId": "1", "verbose": None, "tag": None, "session": None}
    )
    assert not result.is_error  # type: ignore[attr-defined]
    assert upstream.requests[-1].target == "/v1/items/1"


async def test_a_null_required_argument_is_refused(make_caller: MakeCaller, upstream: Upstream) -> None:
    result = await _call(make_caller(), "getItem", {"itemId": None})
    assert result.code == ErrorCode.ARGUMENTS_INVALID  # type: ignore[attr-defined]


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


# -- bindings ---------------------------------------------------------------------------------------


def _bound_caller(make_caller: MakeCaller) -> Caller:
    return make_caller(
        tools={"createOrder": ToolConfig(bindings={"path.shopId": "shop-1", "body.address/city": "Berlin"})}
    )


async def test_bound_arguments_disappear_from_the_input_schema(make_caller: MakeCaller) -> None:
    caller = _bound_caller(make_caller)
    tool = caller.toolset.get("createOrder")
    assert tool is not None
    schema = caller.input_schema(tool, {"body.currency": "EUR"})
    assert "shopId" not in schema["properties"] and "shopId" not in schema["required"]
    assert "currency" not in schema["properties"]
    assert "city" not in schema["properties"]["address"]["properties"]
    assert "shopId" in tool.input_schema["properties"]  # the tool itself is untouched


async def test_bindings_fill_their_arguments_after_the_check(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    caller = _bound_caller(make_caller)
    result = await _call(
        caller,
        "createOrder",
        {"items": [], "address": {"street": "Main"}},
        client_bindings={"body.currency": "EUR"},
    )
    assert not result.is_error, result.text  # type: ignore[attr-defined]
    request = upstream.requests[-1]
    assert request.path == "/v1/shops/shop-1/orders"
    assert json.loads(request.body) == {
        "items": [],
        "address": {"street": "Main", "city": "Berlin"},
        "currency": "EUR",
    }


@pytest.mark.parametrize(
    "arguments",
    [{"shopId": "other", "items": []}, {"items": [], "address": {"city": "Paris"}}],
)
async def test_a_call_that_supplies_a_bound_argument_is_refused(
    make_caller: MakeCaller, upstream: Upstream, arguments: dict[str, object]
) -> None:
    result = await _call(_bound_caller(make_caller), "createOrder", arguments)
    assert result.is_error and result.code == ErrorCode.ARGUMENT_BOUND  # type: ignore[attr-defined]
    assert "Paris" not in result.text and "other" not in result.text  # type: ignore[attr-defined]
    assert upstream.requests == []


async def test_a_header_binding_for_an_undeclared_header_is_sent(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    await _call(make_caller(), "ping", {}, client_bindings={"header.X-Tenant": "t1", "query.region": "eu"})
    request = upstream.requests[-1]
    assert request.headers["x-tenant"] == "t1" and request.query == [("region", "eu")]


# -- answers ----------------------------------------------------------------------------------------


async def test_a_json_object_answer_is_structured_with_compact_json_text(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    upstream.route("/v1/ping", json_response({"a": [1, 2]}))
    result = await _call(make_caller(), "ping", {})
    assert result.text == '{"a":[1,2]}'  # type: ignore[attr-defined]  # the same again as structuredContent
    assert result.structured == {"a": [1, 2]} and result.status == 200  # type: ignore[attr-defined]


async def test_a_json_answer_without_structured_content_is_pretty_printed(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    upstream.route("/v1/ping", json_response([1, {"a": 2}]))
    result = await _call(make_caller(), "ping", {})
    assert result.text == '[\n  1,\n  {\n    "a": 2\n  }\n]'  # type: ignore[attr-defined]
    assert result.structured is None  # type: ignore[attr-defined]


async def test_a_json_array_answer_has_no_structured_content(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    upstream.route("/v1/ping", json_response([1]))
    result = await _call(make_caller(), "ping", {})
    assert result.structured is None  # type: ignore[attr-defined]


async def test_an_error_status_is_an_error_result_with_the_start_of_the_body(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    upstream.route("/v1/ping", text_response("no such thing " + "x" * 5000, status=404))
    result = await _call(make_caller(), "ping", {})
    assert result.is_error and result.code == ErrorCode.UPSTREAM_STATUS and result.status == 404  # type: ignore[attr-defined]
    assert result.text.startswith("The API answered 404 Not Found.\nno such thing")  # type: ignore[attr-defined]
    assert len(result.text) < 2100  # type: ignore[attr-defined]


async def test_an_empty_answer_says_so(make_caller: MakeCaller, upstream: Upstream) -> None:
    from tests.support.upstream import Reply

    upstream.route("/v1/ping", Reply(204))
    result = await _call(make_caller(), "ping", {})
    assert result.text == "The API answered 204 with no content."  # type: ignore[attr-defined]


async def test_a_small_image_comes_back_as_image_content(make_caller: MakeCaller, upstream: Upstream) -> None:
    from tests.support.upstream import binary_response

    upstream.route("/v1/ping", binary_response(b"\x89PNG\r\n\x1a\n" + b"0" * 100, "image/png"))
    result = await _call(make_caller(), "ping", {})
    assert result.image is not None and result.image.mime_type == "image/png"  # type: ignore[attr-defined]


async def test_same_origin_redirects_are_followed_with_the_credential(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    upstream.route("/v1/ping", redirect("/v1/pong", status=307))
    upstream.route("/v1/pong", json_response({"ok": True}))
    result = await _call(make_caller(redirects=2), "ping", {})
    assert result.structured == {"ok": True}  # type: ignore[attr-defined]
    assert upstream.requests[-1].headers["authorization"] == f"Bearer {SECRET}"


async def test_a_redirect_to_another_origin_carries_no_credential(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    with Upstream() as other:
        upstream.route("/v1/ping", redirect(f"{other.url}/landing"))
        caller = make_caller(redirects=2, allow=(upstream.address, other.address))
        result = await _call(caller, "ping", {})
        assert not result.is_error  # type: ignore[attr-defined]
        assert "authorization" not in other.requests[-1].headers


def test_a_redirect_from_https_down_to_http_carries_no_credential() -> None:
    from specbridge.call._credential import Credential

    built = BuiltRequest("GET", "https://api.example.com/v1/x", [], None, Credential("bearer", "", "tok"))
    first = built.to_httpx()
    home = ("https", "api.example.com", 443)
    hop = _next_request(built, first, 302, "http://api.example.com/v1/x", home)
    assert "authorization" not in hop.headers
    same = _next_request(built, first, 302, "https://api.example.com/v1/y", home)
    assert same.headers["authorization"] == "Bearer tok"


def test_a_redirect_that_would_resend_the_body_to_another_origin_is_not_followed() -> None:
    built = BuiltRequest("POST", "https://api.example.com/v1/x", [], b'{"customer": "c-1"}')
    first = built.to_httpx()
    home = ("https", "api.example.com", 443)
    with pytest.raises(UpstreamError) as refused:
        _next_request(built, first, 307, "https://elsewhere.example/collect", home)
    assert refused.value.code == ErrorCode.UPSTREAM_REDIRECT
    assert "elsewhere.example" in refused.value.message
    same = _next_request(built, first, 308, "https://api.example.com/v2/x", home)
    assert same.content == b'{"customer": "c-1"}'


async def test_too_many_redirects_is_an_error(make_caller: MakeCaller, upstream: Upstream) -> None:
    upstream.route("/v1/ping", redirect("/v1/ping"))
    result = await _call(make_caller(redirects=2), "ping", {})
    assert result.code == ErrorCode.REDIRECT_LIMIT and len(upstream.requests) == 3  # type: ignore[attr-defined]


async def test_the_request_is_sent_once_and_an_unreachable_api_is_an_error(upstream: Upstream) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    caller = Caller(api_config(f"http://127.0.0.1:{port}", allow=(f"127.0.0.1:{port}",)), toolset_for())
    result = await _call(caller, "ping", {})
    await caller.aclose()
    assert result.code == ErrorCode.UPSTREAM_UNREACHABLE  # type: ignore[attr-defined]


async def test_a_per_tool_timeout_overrides_the_api_timeout(make_caller: MakeCaller) -> None:
    caller = make_caller(timeout=30, tools={"ping": ToolConfig(timeout=2)})
    tool = caller.toolset.get("ping")
    assert tool is not None and caller.timeout(tool) == 2


async def test_an_api_without_a_base_url_is_an_error_result() -> None:
    caller = Caller(ApiConfig(name="x", spec="x.yaml"), toolset_for())
    result = await caller.call("ping", {})
    await caller.aclose()
    assert result.code == ErrorCode.BASE_URL_MISSING


def _with_servers(*urls: str) -> dict[str, object]:
    from tests.call.conftest import DOCUMENT

    return {**DOCUMENT, "servers": [{"url": url} for url in urls]}


async def test_without_a_base_url_the_documents_first_public_server_is_used() -> None:
    seen: list[httpx.Request] = []

    async def resolve(host: str, port: int) -> list[str]:
        return ["93.184.216.34"]

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"ok": True})

    toolset = toolset_for(_with_servers("http://localhost:8080", "/relative", "https://api.example.com/v2"))
    caller = Caller(
        ApiConfig(name="x", spec="x.yaml"), toolset, transport=httpx.MockTransport(handler), resolve=resolve
    )
    result = await _call(caller, "ping", {})
    await caller.aclose()
    assert not result.is_error  # type: ignore[attr-defined]
    assert str(seen[0].url) == "https://api.example.com/v2/ping"


async def test_a_document_whose_only_server_is_internal_gives_no_base_url() -> None:
    caller = Caller(ApiConfig(name="x", spec="x.yaml"), toolset_for(_with_servers("http://localhost:8080")))
    result = await _call(caller, "ping", {})
    await caller.aclose()
    assert result.code == ErrorCode.BASE_URL_MISSING  # type: ignore[attr-defined]
    assert "no public server" in result.text  # type: ignore[attr-defined]


def test_a_caller_refuses_a_non_public_base_url() -> None:
    with pytest.raises(ConfigError):
        Caller(api_config("http://127.0.0.1:8080"), toolset_for())


def test_loading_a_config_refuses_a_non_public_base_url_unless_allowed(tmp_path: Path) -> None:
    data = {"apis": {"a": {"spec": "x.yaml", "base_url": "http://10.0.0.5/v1"}}}
    with pytest.raises(ConfigError) as caught:
        config_from_data(data, source="s.yaml", base_dir=tmp_path)
    assert "apis.a.base_url" in str(caught.value)
    data["apis"]["a"]["egress"] = {"allow": ["10.0.0.5"]}  # type: ignore[index]
    config_from_data(data, source="s.yaml", base_dir=tmp_path)


def test_the_built_request_is_the_same_without_sending() -> None:
    toolset = toolset_for()
    tool = toolset.get("getItem")
    assert tool is not None
    built = build_request(tool, {"itemId": "a b"}, base_url="https://api.example.com/v1/")
    assert built.url == "https://api.example.com/v1/items/a%20b"
    assert isinstance(built.to_httpx(), httpx.Request)


@pytest.mark.parametrize(("tool", "name"), [("createOrder", "file"), ("ping", "file"), ("upload", "nofield")])
async def test_an_attachment_for_a_tool_or_field_that_takes_no_file_is_refused(
    make_caller: MakeCaller, upstream: Upstream, tool: str, name: str
) -> None:
    arguments = {"shopId": "s", "items": []} if tool == "createOrder" else {}
    result = await _call(make_caller(), tool, arguments, attachments={name: ("a.txt", "text/plain", b"x")})
    assert result.is_error and result.code == ErrorCode.BODY_REFUSED  # type: ignore[attr-defined]
    assert upstream.requests == []


async def test_null_optional_nested_fields_from_strict_mode_are_dropped(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    arguments = {
        "shopId": "s",
        "items": [{"sku": "a", "qty": 1}],
        "address": {"city": None, "street": "Main"},
    }
    result = await _call(make_caller(), "createOrder", {**arguments, "currency": None})
    assert not result.is_error, result.text  # type: ignore[attr-defined]
    assert json.loads(upstream.requests[-1].body) == {
        "items": [{"sku": "a", "qty": 1}],
        "address": {"street": "Main"},
    }


async def test_using_an_egress_exception_is_logged(
    make_caller: MakeCaller, upstream: Upstream, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level("INFO", logger="specbridge.call")
    await _call(make_caller(), "ping", {})
    assert f"egress exception used: 127.0.0.1:{upstream.port}" in caplog.text
    assert SECRET not in caplog.text
