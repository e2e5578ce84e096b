"""`call/_build.py`: one request from the argument map. What arrives upstream: serialisation per style,
header, cookie and query values that cannot inject, headers no argument or binding may set, and our own
headers with the credential last. The URL and its path are `test_url.py`'s."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import anyio
import httpx
import pytest

from specbridge._errors import ErrorCode
from specbridge.call import build_request
from tests.call._caller import SECRET, MakeCaller, toolset_for
from tests.call._caller import call as _call
from tests.call._documents import SEARCH
from tests.support.upstream import Upstream

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


async def test_the_agents_authorization_never_reaches_the_upstream_even_as_a_header_binding_case(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    caller = make_caller(auth_type="header", auth_name="X-Api-Token")
    result = await caller.call("ping", {}, client_bindings={"header.x-api-token": "mine"})
    assert result.is_error and result.code == ErrorCode.HEADER_REFUSED
    assert upstream.requests == []


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


def test_the_built_request_is_the_same_without_sending() -> None:
    toolset = toolset_for()
    tool = toolset.get("getItem")
    assert tool is not None
    built = build_request(tool, {"itemId": "a b"}, base_url="https://api.example.com/v1/")
    assert built.url == "https://api.example.com/v1/items/a%20b"
    assert isinstance(built.to_httpx(), httpx.Request)


# -- F1: exploded object keys naming the credential or a bound parameter ---------------------------


async def test_an_exploded_query_object_cannot_name_the_credentials_query_parameter(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    caller = make_caller(document=SEARCH, auth_type="query", auth_name="api_key")
    result = await _call(caller, "search", {"filter": {"api_key": "attacker-key"}})
    assert result.is_error and result.code == ErrorCode.HEADER_REFUSED, result.text
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
