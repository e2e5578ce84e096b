"""Hardening findings (issue 9) in the call layer: each test here failed before its fix."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest

from specbridge._errors import ErrorCode
from specbridge.call import Caller
from specbridge.call._check import format_path
from tests.call.conftest import MakeCaller, api_config, toolset_for
from tests.support.upstream import Upstream


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
