"""Hardening findings (issue 9) in the call layer: each test here failed before its fix."""

from __future__ import annotations

from typing import Any

import anyio

from specbridge._errors import ErrorCode
from specbridge.call import Caller
from tests.call.conftest import api_config, toolset_for


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
