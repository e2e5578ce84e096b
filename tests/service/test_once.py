"""Steps 6-8, claim, send, store (service/_once.py), on the real stores: one send for concurrent calls of
one key, the order in which the held claims store a result, and a fault after the claim leaving every
held claim outcome unknown, never sent again."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import anyio
import pytest

from specbridge import ErrorCode
from specbridge.call import CallResult
from specbridge.store import Status
from tests.service._harness import ORDER, harness
from tests.support.upstream import Gate, Upstream, json_response

KEYED = {**ORDER, "idempotency_key": "order-1"}


@pytest.fixture(autouse=True)
def upstream_routes(upstream: Upstream) -> None:
    upstream.route("/shops/s1/orders", json_response({"id": "o1"}, status=201))


async def test_concurrent_calls_with_one_key_make_one_request_and_all_get_its_result(
    tmp_path: Path, upstream: Upstream, store_url: str
) -> None:
    gate = Gate()
    upstream.route("/shops/s1/orders", gate.reply({"id": "o-once"}, status=201))
    async with harness(tmp_path, upstream, store_url) as service:
        with anyio.fail_after(30):
            calls = [asyncio.create_task(service.result("createOrder", KEYED)) for _ in range(10)]
            await anyio.to_thread.run_sync(gate.arrived.wait, 20)
            gate.open.set()
            results = await asyncio.gather(*calls)
    assert [result.structured for result in results] == [{"id": "o-once"}] * 10
    assert len(upstream.requests) == 1


async def test_a_long_call_stores_its_result_and_event_before_its_key_does(
    tmp_path: Path, upstream: Upstream, store_url: str
) -> None:
    """A gateway killed between the two leaves the key outcome unknown (never re-sent), never a stored
    result whose long call (and `call.completed`) is lost."""
    async with harness(tmp_path, upstream, store_url, calls={"long": True, "wait": 10}) as service:
        opened = await service.ledger.open()
        completed: list[str] = []
        complete = opened.complete

        async def noting(key: str, *args: Any, **kwargs: Any) -> bool:
            completed.append(key.split(":")[0])
            return await complete(key, *args, **kwargs)

        opened.complete = noting  # type: ignore[method-assign]
        done = await service.result("createOrder", KEYED)
        again = await service.result("createOrder", KEYED)  # the key's stored result
    assert completed == ["call", "idem"]
    assert done.structured == again.structured == {"id": "o1"}
    assert len(upstream.requests) == 1


async def test_a_fault_during_the_send_leaves_every_held_claim_outcome_unknown_and_nothing_resent(
    tmp_path: Path, upstream: Upstream, store_url: str
) -> None:
    tools = {"createOrder": {"requires_approval": True}}
    async with harness(tmp_path, upstream, store_url, tools=tools, approvals={"wait": 0}) as service:
        await service.result("createOrder", KEYED)
        desk = service.ledger.current().desk
        (pending,) = await desk.list(Status.PENDING)
        await desk.approve(pending.id, "alice")
        send = service.caller.send

        async def breaks(*args: Any, **kwargs: Any) -> CallResult:
            await send(*args, **kwargs)  # on the wire ...
            raise ConnectionResetError("... and the process lost the connection")

        service.caller.send = breaks  # type: ignore[method-assign]
        with pytest.raises(ConnectionResetError):
            await service.result("createOrder", KEYED)
        service.caller.send = send  # type: ignore[method-assign]
        keyed = await service.result("createOrder", KEYED)
        approval = await desk.get(pending.id)
        unkeyed = await service.result("createOrder", ORDER)  # without the key: another call
    assert keyed.code is ErrorCode.IDEMPOTENCY_OUTCOME_UNKNOWN
    assert approval.status is Status.OUTCOME_UNKNOWN
    assert unkeyed.code is ErrorCode.APPROVAL_PENDING and pending.id not in unkeyed.text
    assert len(upstream.requests) == 1


async def test_an_upstream_that_does_not_answer_in_time_spends_the_key_and_is_never_resent(
    tmp_path: Path, upstream: Upstream
) -> None:
    gate = Gate(limit=5)
    upstream.route("/shops/s1/orders", gate.reply({"id": "late"}, status=201))
    tools = {"createOrder": {"timeout": 0.3}}
    async with harness(tmp_path, upstream, tools=tools) as service:
        with anyio.fail_after(20):
            first = await service.result("createOrder", KEYED)
            gate.open.set()
            again = await service.result("createOrder", KEYED)
    assert first.code is ErrorCode.UPSTREAM_TIMEOUT
    assert again.code is ErrorCode.IDEMPOTENCY_OUTCOME_UNKNOWN
    assert len(upstream.requests) == 1


async def test_a_request_that_cannot_be_built_after_the_claim_gives_the_key_back_and_sends_nothing(
    tmp_path: Path, upstream: Upstream
) -> None:
    upstream.route("/payments", json_response({"id": "pay1"}))
    async with harness(tmp_path, upstream) as service:
        refused = await service.result(
            "createPayment", {"amount": 5, "X-Note": "a\nb", "idempotency_key": "k"}
        )
        fixed = await service.result("createPayment", {"amount": 5, "X-Note": "ab", "idempotency_key": "k"})
    assert refused.code is ErrorCode.HEADER_REFUSED and "header.X-Note" in refused.text
    assert fixed.structured == {"id": "pay1"}  # the key was free again: not key-reused, not unknown
    assert len(upstream.requests) == 1


async def test_a_fault_before_the_request_goes_out_leaves_the_key_free_not_outcome_unknown(
    tmp_path: Path, upstream: Upstream
) -> None:
    async with harness(tmp_path, upstream) as service:
        build = service.caller.build

        def breaks(*args: Any, **kwargs: Any) -> Any:
            raise RuntimeError("a fault while building, before anything went out")

        service.caller.build = breaks  # type: ignore[method-assign]
        with pytest.raises(RuntimeError):
            await service.result("createOrder", KEYED)
        service.caller.build = build  # type: ignore[method-assign]
        done = await service.result("createOrder", KEYED)
    assert done.structured == {"id": "o1"}  # the key was given back, not spent
    assert len(upstream.requests) == 1
