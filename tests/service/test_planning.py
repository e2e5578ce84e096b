"""Step 1, the plan (service/_planning.py): what the config decides for a call, looked up once per
call and cached per tool and client bindings, never per idempotency key."""

from __future__ import annotations

from pathlib import Path

from specbridge import ErrorCode
from specbridge.call import CallResult
from specbridge.service._planning import plan
from specbridge.service._request import Planned
from tests.service._harness import ORDER, harness
from tests.support.upstream import Upstream


async def test_the_plan_says_which_tools_need_approval_and_which_values_are_bound(
    tmp_path: Path, upstream: Upstream
) -> None:
    tools = {"createOrder": {"requires_approval": True, "bindings": {"body.product": "p1"}}}
    async with harness(tmp_path, upstream, tools=tools) as service:
        order = plan(service.request("createOrder", {"shopId": "s1", "quantity": 1}))
        listing = plan(service.request("listNotes", {}))
    assert isinstance(order, Planned) and isinstance(listing, Planned)
    assert order.plan.requires_approval and not listing.plan.requires_approval
    assert dict(order.plan.binding_values) == {"body.product": "p1"}


async def test_the_key_is_taken_out_and_every_key_shares_one_plan(tmp_path: Path, upstream: Upstream) -> None:
    async with harness(tmp_path, upstream) as service:
        first = plan(service.request("createPayment", {"amount": 5, "idempotency_key": "k-1"}))
        second = plan(service.request("createPayment", {"amount": 5, "idempotency_key": "k-2"}))
        plans = len(service.caller._plans)
    assert isinstance(first, Planned) and isinstance(second, Planned)
    assert (first.key, first.arguments) == ("k-1", {"amount": 5})
    assert first.plan is second.plan and plans == 1  # a document's own key field: not a plan per key
    assert set(first.key_binding) == {"header.Idempotency-Key"}
    assert first.key_binding != second.key_binding


async def test_a_malformed_key_is_an_argument_error_before_anything_else(
    tmp_path: Path, upstream: Upstream
) -> None:
    async with harness(tmp_path, upstream) as service:
        planned = plan(service.request("createOrder", {**ORDER, "idempotency_key": ""}))
    assert isinstance(planned, CallResult) and planned.code is ErrorCode.ARGUMENTS_INVALID
    assert "idempotency_key" in planned.text
