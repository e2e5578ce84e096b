"""Hardening findings (issue 9) in the call layer: each test here failed before its fix."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest

from specbridge._errors import ErrorCode
from specbridge.call import Caller
from specbridge.call._check import format_path
from tests.call.conftest import SECRET, MakeCaller, api_config, toolset_for
from tests.support.upstream import Upstream, redirect


async def _call(caller: Caller, tool: str, arguments: dict[str, Any], **kwargs: Any) -> Any:
    with anyio.fail_after(10):
        return await caller.call(tool, arguments, **kwargs)


# -- a DNS failure is not a policy refusal -----------------------------------------------------------


async def test_a_host_that_does_not_resolve_is_reported_as_a_dns_failure_not_a_refusal() -> None:
    # `.invalid` never resolves (RFC 6761), with or without a network.
    caller = Caller(api_config("https://specbridge-test.invalid/v1"), toolset_for())
    try:
        result = await _call(caller, "ping", {})
    finally:
        await caller.aclose()
    assert result.is_error and result.code == ErrorCode.UPSTREAM_DNS_FAILED, result.text
    assert "specbridge-test.invalid" in result.text


async def test_a_name_that_resolves_to_no_address_is_a_dns_failure() -> None:
    async def resolve(host: str, port: int) -> list[str]:
        return []

    caller = Caller(api_config("https://api.example.com/v1"), toolset_for(), resolve=resolve)
    try:
        result = await _call(caller, "ping", {})
    finally:
        await caller.aclose()
    assert result.is_error and result.code == ErrorCode.UPSTREAM_DNS_FAILED, result.text


# -- a bound nested body field under another spelling -------------------------------------------------

ORDER = {"shopId": "s-1", "items": [{"sku": "a", "qty": 1}]}


@pytest.mark.parametrize("spelling", ["City", "CITY", "city ", " city", "cIty\t"])
async def test_a_case_or_space_variant_of_a_bound_nested_body_field_is_refused(
    make_caller: MakeCaller, upstream: Upstream, spelling: str
) -> None:
    result = await _call(
        make_caller(),
        "createOrder",
        {**ORDER, "address": {spelling: "Elsewhere", "street": "Main St"}},
        client_bindings={"body.address/city": "Lyon"},
    )
    assert result.is_error and result.code == ErrorCode.ARGUMENT_BOUND, result.text
    assert format_path(("address", spelling)) in result.text  # the path as sent, never the value
    assert "Elsewhere" not in result.text
    assert upstream.requests == []


async def test_other_fields_beside_a_bound_nested_body_field_are_still_sent(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    result = await _call(
        make_caller(),
        "createOrder",
        {**ORDER, "address": {"street": "Main St"}},
        client_bindings={"body.address/city": "Lyon"},
    )
    assert not result.is_error, result.text
    assert json.loads(upstream.requests[-1].body)["address"] == {"street": "Main St", "city": "Lyon"}


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
