"""`call/_send.py`: sent once, one deadline, redirects only as configured (and never carrying the
credential or configured values to another origin), capped reads."""

from __future__ import annotations

import socket

import anyio
import pytest

from specbridge._errors import ErrorCode, UpstreamError
from specbridge.call import Caller
from specbridge.call._build import BuiltRequest
from specbridge.call._send import _next_request
from tests.call._caller import SECRET, MakeCaller, api_config, toolset_for
from tests.call._caller import call as _call
from tests.support.upstream import (
    Upstream,
    endless_body,
    gzip_bomb,
    json_response,
    redirect,
    slow_drip,
)


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


# -- nothing from the config follows a redirect to another origin ------------------------------------

BOUND = {"header.X-Tenant": "tenant-acme-77", "cookie.account": "acct-secret-9", "query.region": "eu-bound-3"}


async def test_a_cross_origin_redirect_carries_no_credential_bound_header_or_cookie(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    with Upstream() as other:  # another port: another origin
        upstream.route("/v1/ping", redirect(f"{other.url}/landing"))
        caller = make_caller(redirects=2, allow=(upstream.address, other.address))
        result = await _call(caller, "ping", {}, client_bindings=BOUND)
        assert not result.is_error, result.text
        first, hop = upstream.requests[-1], other.requests[-1]
    assert first.headers["x-tenant"] == "tenant-acme-77"  # the base origin gets them all
    assert "acct-secret-9" in first.headers["cookie"]
    assert ("region", "eu-bound-3") in first.query
    sent = repr(hop)
    for value in ("tenant-acme-77", "acct-secret-9", "eu-bound-3", SECRET):
        assert value not in sent
    assert "cookie" not in hop.headers and "authorization" not in hop.headers


@pytest.mark.parametrize(
    "target",
    [
        "/landing?region=eu-bound-3",  # the bound query value copied into Location
        "/landing?r=eu%2Dbound%2D3",
        "/landing/eu-bound-3",
        "/landing?t=" + SECRET.replace("/", "%2F").replace("+", "%2B").replace("=", "%3D"),
        "/landing?c=acct-secret-9",
    ],
)
async def test_a_cross_origin_redirect_whose_location_carries_a_configured_value_is_not_followed(
    make_caller: MakeCaller, upstream: Upstream, target: str
) -> None:
    with Upstream() as other:
        upstream.route("/v1/ping", redirect(f"{other.url}{target}"))
        caller = make_caller(redirects=2, allow=(upstream.address, other.address))
        result = await _call(caller, "ping", {}, client_bindings=BOUND)
        assert other.requests == []
    assert result.is_error and result.code == ErrorCode.UPSTREAM_REDIRECT, result.text
    assert "eu-bound-3" not in result.text and "acct-secret-9" not in result.text


async def test_a_same_origin_redirect_still_carries_everything(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    upstream.route("/v1/ping", redirect("/v1/pong?region=eu-bound-3", status=307))
    result = await _call(make_caller(redirects=2), "ping", {}, client_bindings=BOUND)
    assert not result.is_error, result.text
    hop = upstream.requests[-1]
    assert hop.path == "/v1/pong" and hop.headers["x-tenant"] == "tenant-acme-77"
    assert hop.headers["authorization"] == f"Bearer {SECRET}"
