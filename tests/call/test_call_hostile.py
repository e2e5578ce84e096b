"""The hostile-input suite: address forms, path tricks, header and query injection, reserved headers,
schema edge cases and hostile answers. Address forms use a fake resolver; the rest go over real sockets
to the loopback upstream."""

from __future__ import annotations

import base64
from typing import Any
from urllib.parse import quote

import anyio
import httpx
import pytest

from specbridge._errors import ErrorCode, RequestRefused
from specbridge.call import Caller, check_base_url
from specbridge.config import AuthConfig, Secret
from tests.call.conftest import SECRET, MakeCaller, api_config, toolset_for
from tests.support.upstream import (
    Reply,
    Upstream,
    binary_response,
    echo_header,
    endless_body,
    gzip_bomb,
    invalid_utf8,
    json_response,
    redirect,
    slow_drip,
    text_response,
)

# -- address forms: refused in a base URL as written ---------------------------------------------

REFUSED_HOSTS = [
    # odd IPv4 spellings of 127.0.0.1 and friends
    "2130706433",
    "0177.0.0.1",
    "0x7f.1",
    "0x7f000001",
    "127.1",
    "017700000001",
    "0x7f.0.0.1",
    "127.0.0.1.",
    "0",
    # loopback, private, link-local, metadata, CGNAT, special ranges
    "127.0.0.1",
    "127.255.255.254",
    "10.0.0.1",
    "172.16.5.4",
    "192.168.1.1",
    "169.254.169.254",
    "169.254.170.2",
    "100.100.100.200",
    "100.64.0.1",
    "0.0.0.0",
    "255.255.255.255",
    "224.0.0.1",
    "240.0.0.1",
    "192.0.0.192",
    "198.18.0.1",
    "192.0.2.1",
    "198.51.100.7",
    "203.0.113.9",
    # IPv6 forms
    "[::1]",
    "[::]",
    "[::ffff:127.0.0.1]",
    "[::ffff:7f00:1]",
    "[::ffff:169.254.169.254]",
    "[::127.0.0.1]",
    "[64:ff9b::7f00:1]",
    "[64:ff9b::a9fe:a9fe]",
    "[64:ff9b:1::a00:1]",
    "[2002:7f00:1::]",
    "[2002:a9fe:a9fe::1]",
    "[2001:0:4136:e378:8000:63bf:3fff:fdd2]",
    "[fd00:ec2::254]",
    "[fc00::1]",
    "[fec0::1]",
    "[fe80::1]",
    "[fe80::1%25eth0]",
    "[ff02::1]",
    "[2001:db8::1]",
    # internal names
    "localhost",
    "LOCALHOST",
    "localhost.",
    "api.localhost",
    "metadata.google.internal",
    "metadata.google.internal.",
    "printer.local",
    "box.localdomain",
    "nas.home.arpa",
    "intranet",
    "intranet.",
    "ip6-localhost",
]


@pytest.mark.parametrize("host", REFUSED_HOSTS)
def test_a_non_public_host_in_the_base_url_is_refused(host: str) -> None:
    with pytest.raises(RequestRefused) as caught:
        check_base_url(f"http://{host}/v1")
    assert caught.value.code == ErrorCode.EGRESS_REFUSED


@pytest.mark.parametrize(
    "host", ["api.example.com", "93.184.216.34", "[2606:4700:4700::1111]", "example.com."]
)
def test_a_public_host_in_the_base_url_is_accepted(host: str) -> None:
    check_base_url(f"https://{host}/v1")


@pytest.mark.parametrize(
    "url", ["ftp://api.example.com/", "https://user:pw@api.example.com/", "https://api.example.com/?a=1"]
)
def test_a_base_url_with_another_scheme_user_info_or_query_is_refused(url: str) -> None:
    with pytest.raises(RequestRefused):
        check_base_url(url)


# -- address forms: refused at call time, after resolution ----------------------------------------

RESOLVED_TO = [
    ["10.0.0.5"],
    ["127.0.0.1"],
    ["169.254.169.254"],
    ["fd00:ec2::254"],
    ["::ffff:169.254.169.254"],
    ["100.100.100.200"],
    ["93.184.216.34", "127.0.0.1"],  # a public and a private address: refused as a whole
    ["2606:4700:4700::1111", "fe80::1"],
    ["64:ff9b::a00:1"],
    ["not-an-address"],
]


@pytest.mark.parametrize("addresses", RESOLVED_TO)
async def test_a_name_that_resolves_to_a_non_public_address_is_refused_and_nothing_is_sent(
    addresses: list[str],
) -> None:
    seen: list[httpx.Request] = []

    async def resolve(host: str, port: int) -> list[str]:
        return addresses

    transport = httpx.MockTransport(lambda request: seen.append(request) or httpx.Response(200))
    caller = Caller(
        api_config("https://api.example.com/v1"), toolset_for(), transport=transport, resolve=resolve
    )
    with anyio.fail_after(10):
        result = await caller.call("ping", {})
    await caller.aclose()
    assert result.is_error and result.code == ErrorCode.EGRESS_REFUSED
    assert seen == []


async def test_a_name_that_resolves_to_a_public_address_is_called() -> None:
    seen: list[httpx.Request] = []

    async def resolve(host: str, port: int) -> list[str]:
        return ["93.184.216.34"]

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"ok": True})

    caller = Caller(
        api_config("https://api.example.com/v1"),
        toolset_for(),
        transport=httpx.MockTransport(handler),
        resolve=resolve,
    )
    result = await caller.call("ping", {})
    await caller.aclose()
    assert not result.is_error and result.structured == {"ok": True}
    assert str(seen[0].url) == "https://api.example.com/v1/ping"


async def test_an_allowed_address_does_not_let_a_name_that_resolves_to_it_through() -> None:
    async def resolve(host: str, port: int) -> list[str]:
        return ["127.0.0.1"]

    seen: list[httpx.Request] = []
    transport = httpx.MockTransport(lambda request: seen.append(request) or httpx.Response(200))
    api = api_config("http://attacker.example:8080/v1", allow=("127.0.0.1:8080",))
    caller = Caller(api, toolset_for(), transport=transport, resolve=resolve)
    with anyio.fail_after(10):
        result = await caller.call("ping", {})
    await caller.aclose()
    assert result.is_error and result.code == ErrorCode.EGRESS_REFUSED
    assert seen == []


async def test_the_pinned_connection_goes_to_the_checked_address_not_a_second_lookup(
    upstream: Upstream,
) -> None:
    answers = iter([["127.0.0.1"], ["10.9.9.9"]])
    lookups: list[str] = []

    async def resolve(host: str, port: int) -> list[str]:
        lookups.append(host)
        return next(answers)

    api = api_config(f"http://upstream.example:{upstream.port}/v1", allow=("upstream.example",))
    caller = Caller(api, toolset_for(), resolve=resolve)
    with anyio.fail_after(10):
        result = await caller.call("ping", {})
    await caller.aclose()
    assert not result.is_error
    assert lookups == ["upstream.example"]  # one resolution, and the connection used its answer
    assert upstream.requests[-1].headers["host"] == f"upstream.example:{upstream.port}"


# -- path tricks ----------------------------------------------------------------------------------

PATH_REFUSED = ["..", ".", ""]
PATH_ENCODED = {
    "%2e%2e": "%252e%252e",
    "a/b": "a%2Fb",
    "?admin=1": "%3Fadmin%3D1",
    "#frag": "%23frag",
    "//evil.example": "%2F%2Fevil.example",
    "a\0b": "a%00b",
    "a\\b": "a%5Cb",
    "../../admin": "..%2F..%2Fadmin",
    "..;/x": "..%3B%2Fx",
    "%2F": "%252F",
    " space": "%20space",
    "é": "%C3%A9",
}


@pytest.mark.parametrize("value", PATH_REFUSED)
async def test_a_path_value_of_dot_dot_or_empty_is_refused(
    make_caller: MakeCaller, upstream: Upstream, value: str
) -> None:
    caller = make_caller()
    result = await caller.call("getItem", {"itemId": value})
    assert result.is_error and result.code == ErrorCode.PATH_REFUSED
    assert upstream.requests == []


@pytest.mark.parametrize(("value", "sent"), PATH_ENCODED.items())
async def test_a_path_value_is_one_encoded_segment_under_the_base_url(
    make_caller: MakeCaller, upstream: Upstream, value: str, sent: str
) -> None:
    caller = make_caller()
    with anyio.fail_after(10):
        result = await caller.call("getItem", {"itemId": value})
    assert not result.is_error, result.text
    assert upstream.requests[-1].target == f"/v1/items/{sent}"


# -- header, cookie and query injection -----------------------------------------------------------

HEADER_REFUSED = ["a\r\nX-Evil: 1", "a\nb", "a\rb", "a\0b", "caf\u00e9", "a\x7fb", "\r\n\r\nGET / HTTP/1.1"]


@pytest.mark.parametrize("value", HEADER_REFUSED)
async def test_a_header_value_with_cr_lf_nul_or_non_ascii_is_refused(
    make_caller: MakeCaller, upstream: Upstream, value: str
) -> None:
    result = await make_caller().call("getItem", {"itemId": "1", "X-Trace-Note": value})
    assert result.is_error and result.code == ErrorCode.HEADER_REFUSED
    assert value not in result.text
    assert upstream.requests == []


QUERY_VALUES = ["x&admin=1", "a#b", "a\r\nb", "a=b", "a+b", "a%20b", "../x", "\u00fc"]


@pytest.mark.parametrize("value", QUERY_VALUES)
async def test_a_query_value_arrives_as_one_value(
    make_caller: MakeCaller, upstream: Upstream, value: str
) -> None:
    with anyio.fail_after(10):
        result = await make_caller().call("getItem", {"itemId": "1", "tag": [value]})
    assert not result.is_error, result.text
    assert upstream.requests[-1].query == [("tag", value)]


@pytest.mark.parametrize("value", ["a; admin=1", "a\r\nb", "x=y", "a,b"])
async def test_a_cookie_value_cannot_add_a_cookie(
    make_caller: MakeCaller, upstream: Upstream, value: str
) -> None:
    with anyio.fail_after(10):
        await make_caller().call("getItem", {"itemId": "1", "session": value})
    cookie = upstream.requests[-1].headers["cookie"]
    assert cookie == f"session={quote(value, safe='')}"


@pytest.mark.parametrize(
    "name", ["Authorization", "Host", "Cookie", "X-Specbridge-Operation", "authorization", "Mcp-Session-Id"]
)
async def test_a_reserved_header_the_spec_declares_cannot_be_sent(
    make_caller: MakeCaller, upstream: Upstream, name: str
) -> None:
    result = await make_caller().call("anything", {"rest": "x", name: "evil"})
    assert result.is_error and result.code == ErrorCode.ARGUMENTS_INVALID
    assert upstream.requests == []


@pytest.mark.parametrize(
    "binding",
    ["header.Authorization", "header.Content-Length", "header.X-Forwarded-For", "header.Payment-Token"],
)
async def test_a_binding_cannot_set_a_reserved_header(
    make_caller: MakeCaller, upstream: Upstream, binding: str
) -> None:
    result = await make_caller().call("ping", {}, client_bindings={binding: "evil"})
    assert result.is_error and result.code == ErrorCode.HEADER_REFUSED
    assert upstream.requests == []


async def test_a_binding_cannot_set_the_credential_query_name(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    caller = make_caller(auth_type="query", auth_name="api_key")
    result = await caller.call("ping", {}, client_bindings={"query.api_key": "evil"})
    assert result.is_error and result.code == ErrorCode.HEADER_REFUSED
    assert upstream.requests == []


# -- schema edge cases ----------------------------------------------------------------------------


def _deep(levels: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(levels):
        value = {"a": value}
    return value


SCHEMA_EDGES: list[tuple[str, dict[str, Any]]] = [
    ("huge integer", {"items": [{"sku": "a", "qty": 10**400}]}),
    ("integer past 64 bits", {"items": [{"sku": "a", "qty": 2**64}]}),
    ("negative huge integer", {"items": [{"sku": "a", "qty": -(10**30)}]}),
    ("NaN", {"items": [{"sku": "a", "qty": float("nan")}]}),
    ("Infinity", {"items": [{"sku": "a", "qty": float("inf")}]}),
    ("minus Infinity", {"items": [], "nested": {"x": float("-inf")}}),
    ("deep nesting", {"items": [], "nested": _deep(10_000)}),
    ("10 MB string", {"items": [{"sku": "x" * 10_000_000, "qty": 1}]}),
    ("bytes value", {"items": [{"sku": b"raw", "qty": 1}]}),
    ("non-string key", {"items": [], "nested": {1: "x"}}),
    ("boolean as integer", {"items": [{"sku": "a", "qty": True}]}),
    ("float as integer", {"items": [{"sku": "a", "qty": 1.5}]}),
    ("wrong enum", {"items": [], "currency": "XXX"}),
    ("bad email", {"items": [], "contact": "not-an-email"}),
    ("bad date-time", {"items": [], "when": "yesterday"}),
    ("too many items", {"items": [{"sku": "a", "qty": 1}] * 51}),
    ("missing required", {}),
    ("unknown argument", {"items": [], "admin": True}),
]


# Past the call limits (call/_limits.py), refused before any schema work with their own codes.
LIMIT_CODES = {
    "deep nesting": ErrorCode.ARGUMENTS_TOO_DEEP,
    "10 MB string": ErrorCode.ARGUMENT_STRING_TOO_LONG,
}


@pytest.mark.parametrize(("case", "arguments"), SCHEMA_EDGES, ids=[case for case, _ in SCHEMA_EDGES])
async def test_an_argument_edge_case_is_refused_without_echoing_and_nothing_is_sent(
    make_caller: MakeCaller, upstream: Upstream, case: str, arguments: dict[str, Any]
) -> None:
    with anyio.fail_after(30):
        result = await make_caller().call("createOrder", {"shopId": "s1", **arguments})
    expected = LIMIT_CODES.get(case, ErrorCode.ARGUMENTS_INVALID)
    assert result.is_error and result.code == expected, (case, result.text)
    assert len(result.text) < 1000
    assert "XXX" not in result.text and "not-an-email" not in result.text and "yesterday" not in result.text
    assert upstream.requests == []


def test_duplicate_keys_in_command_line_arguments_are_refused() -> None:
    from specbridge._errors import ArgumentError
    from specbridge.cli._call import parse_arguments

    with pytest.raises(ArgumentError):
        parse_arguments('{"itemId": "1", "itemId": "2"}')


@pytest.mark.parametrize("text", ['{"a": NaN}', '{"a": Infinity}', '{"a": -Infinity}', "[1]", "{"])
def test_non_json_numbers_and_non_objects_in_command_line_arguments_are_refused(text: str) -> None:
    from specbridge._errors import ArgumentError
    from specbridge.cli._call import parse_arguments

    with pytest.raises(ArgumentError):
        parse_arguments(text)


# -- hostile answers ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "location",
    [
        "http://169.254.169.254/latest/meta-data/",
        "http://[fd00:ec2::254]/",
        "http://100.100.100.200/",
        "http://localhost/admin",
        "http://2130706433/",
        "http://metadata.google.internal/",
        "file:///etc/passwd",
        "gopher://127.0.0.1:6379/",
    ],
)
async def test_a_followed_redirect_to_a_non_public_address_is_refused(
    make_caller: MakeCaller, upstream: Upstream, location: str
) -> None:
    upstream.route("/v1/ping", redirect(location))
    with anyio.fail_after(10):
        result = await make_caller(redirects=3).call("ping", {})
    assert result.is_error and result.code == ErrorCode.EGRESS_REFUSED
    assert len(upstream.requests) == 1


async def test_a_redirect_is_not_followed_by_default_and_shows_its_location(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    upstream.route("/v1/ping", redirect("http://169.254.169.254/latest/meta-data/"))
    with anyio.fail_after(10):
        result = await make_caller().call("ping", {})
    assert result.is_error and result.code == ErrorCode.UPSTREAM_REDIRECT
    assert "http://169.254.169.254/latest/meta-data/" in result.text
    assert len(upstream.requests) == 1


async def test_a_gzip_bomb_stops_at_the_limit(make_caller: MakeCaller, upstream: Upstream) -> None:
    upstream.route("/v1/ping", gzip_bomb(64 * 1024 * 1024))
    with anyio.fail_after(20):
        result = await make_caller().call("ping", {})
    assert not result.is_error
    assert len(result.text) < 1024 * 1024 + 200
    assert "cut" in result.text


async def test_an_endless_body_stops_at_the_limit(make_caller: MakeCaller, upstream: Upstream) -> None:
    upstream.route("/v1/ping", endless_body())
    with anyio.fail_after(20):
        result = await make_caller().call("ping", {})
    assert not result.is_error and "cut" in result.text


async def test_a_slow_drip_ends_at_the_deadline(make_caller: MakeCaller, upstream: Upstream) -> None:
    upstream.route("/v1/ping", slow_drip(interval=0.05))
    with anyio.fail_after(20):
        result = await make_caller(timeout=0.5).call("ping", {})
    assert result.is_error and result.code == ErrorCode.UPSTREAM_TIMEOUT


ENCODINGS = {
    "raw": SECRET,
    "url-encoded": quote(SECRET, safe=""),
    "base64": base64.b64encode(SECRET.encode()).decode(),
}


@pytest.mark.parametrize(("form", "echoed"), ENCODINGS.items())
@pytest.mark.parametrize("where", ["text", "json value", "json key", "error body", "location"])
async def test_an_echoed_credential_never_reaches_the_agent(
    make_caller: MakeCaller, upstream: Upstream, form: str, echoed: str, where: str
) -> None:
    replies: dict[str, Reply] = {
        "text": text_response(f"your token is {echoed}!"),
        "json value": json_response({"token": echoed, "list": [echoed]}),
        "json key": json_response({echoed: 1}),
        "error body": text_response(f"bad token {echoed}", status=401),
        "location": redirect(f"https://elsewhere.example/?t={echoed}"),
    }
    upstream.route("/v1/ping", replies[where])
    with anyio.fail_after(10):
        result = await make_caller().call("ping", {})
    assert echoed not in result.text
    assert echoed not in repr(result.structured)
    assert "[credential]" in result.text


async def test_a_basic_credential_echoed_as_its_base64_is_redacted(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    upstream.route("/v1/ping", echo_header("authorization"))
    with anyio.fail_after(10):
        result = await make_caller(auth_type="basic").call("ping", {})
    assert result.text == "Basic [credential]"


async def test_an_invalid_utf8_text_answer_is_shown_with_replacement_characters(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    upstream.route("/v1/ping", invalid_utf8())
    with anyio.fail_after(10):
        result = await make_caller().call("ping", {})
    assert not result.is_error and result.text.startswith("ok ") and "\ufffd" in result.text


@pytest.mark.parametrize(
    ("data", "kind"),
    [(b"\x00\x01\x02" * 100, "application/octet-stream"), (b"%PDF-1.7" + b"\0" * 50, "application/pdf")],
)
async def test_a_binary_answer_is_described_not_shown(
    make_caller: MakeCaller, upstream: Upstream, data: bytes, kind: str
) -> None:
    upstream.route("/v1/ping", binary_response(data, kind))
    with anyio.fail_after(10):
        result = await make_caller().call("ping", {})
    assert result.text == f"The API answered 200 with {len(data)} bytes of {kind} (not text, so not shown)."


async def test_a_binary_body_labelled_as_json_is_shown_as_text_not_structured(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    upstream.route("/v1/ping", binary_response(b"\xff\xfe{{{", "application/json"))
    with anyio.fail_after(10):
        result = await make_caller().call("ping", {})
    assert result.structured is None and not result.is_error


async def test_the_agents_authorization_never_reaches_the_upstream_even_as_a_header_binding_case(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    caller = make_caller(auth_type="header", auth_name="X-Api-Token")
    result = await caller.call("ping", {}, client_bindings={"header.x-api-token": "mine"})
    assert result.is_error and result.code == ErrorCode.HEADER_REFUSED
    assert upstream.requests == []


async def test_a_header_secret_for_authorization_without_a_space_is_sent_as_bearer(
    upstream: Upstream, secret_env: str
) -> None:
    api = api_config(
        upstream.url,
        allow=(upstream.address,),
        auth=AuthConfig(type="header", name="Authorization", secret=Secret(secret_env)),
    )
    caller = Caller(api, toolset_for())
    with anyio.fail_after(10):
        await caller.call("ping", {})
    await caller.aclose()
    assert upstream.requests[-1].headers["authorization"] == f"Bearer {SECRET}"


@pytest.mark.parametrize("arguments", [{"itemId": "x" * 40_000}, {"itemId": "1", "tag": ["y" * 40_000]}])
async def test_a_url_longer_than_servers_accept_is_refused(
    make_caller: MakeCaller, upstream: Upstream, arguments: dict[str, Any]
) -> None:
    result = await make_caller().call("getItem", arguments)
    assert result.is_error and result.code == ErrorCode.PATH_REFUSED
    assert upstream.requests == []
