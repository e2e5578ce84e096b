"""The call service stopping (service/_stopping.py, `CallService.drain`): a call waiting for a person
ends at once with `gateway-stopping` (nothing sent), a new call is refused alike, a call on the wire
finishes and stores its outcome, a long call finishes and stores its result within the drain or is
stored as outcome unknown after it, never sent again."""

from __future__ import annotations

import time
from pathlib import Path

import anyio
import pytest

from specbridge import ErrorCode
from specbridge.call import CallResult
from specbridge.service import call_key, store_key
from specbridge.service._stopping import Stopping
from specbridge.store import ClaimState, Status
from tests.service._harness import ORDER, TOOLS, approved_while_nobody_waits, harness, served
from tests.support.notice import reads_pending
from tests.support.upstream import Gate, Upstream, json_response

KEYED = {**ORDER, "idempotency_key": "order-1"}


@pytest.fixture
def gate(upstream: Upstream) -> Gate:
    held = Gate(limit=30)
    upstream.route("/shops/s1/orders", held.reply({"id": "o1"}, status=201))
    upstream.route("/payments", json_response({"id": "pay1"}))
    return held


async def test_a_stop_ends_a_call_waiting_for_a_person_and_refuses_new_ones_sending_nothing(
    tmp_path: Path, upstream: Upstream, gate: Gate
) -> None:
    tools = {"createPayment": {"requires_approval": True}}
    async with harness(tmp_path, upstream, tools=tools, approvals={"wait": 50}) as service:
        waiting = reads_pending(await service.ledger.open())
        results: list[CallResult] = []

        async def pay() -> None:
            results.append(await service.result("createPayment", {"amount": 5}))

        with anyio.fail_after(20):
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(pay)
                await waiting.wait()
                assert await service.service.drain(10)
        late = await service.result("getProduct", {"shopId": "s1", "id": "p1"})
        (still,) = await service.ledger.current().desk.list(Status.PENDING)
    assert [result.code for result in results] == [ErrorCode.GATEWAY_STOPPING]
    assert "nothing was sent" in results[0].text
    assert late.code is ErrorCode.GATEWAY_STOPPING
    assert still.tool == "createPayment"  # the approval is still there for the next try
    assert upstream.requests == []


async def test_a_keyed_call_on_the_wire_finishes_within_the_drain_and_its_result_is_stored(
    tmp_path: Path, upstream: Upstream, gate: Gate
) -> None:
    async with harness(tmp_path, upstream) as service:
        results: list[CallResult] = []

        async def order() -> None:
            results.append(await service.result("createOrder", KEYED))

        with anyio.fail_after(30):
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(order)
                await anyio.to_thread.run_sync(gate.arrived.wait, 30)
                draining = anyio.Event()

                async def drain() -> None:
                    draining.set()
                    assert await service.service.drain(20)

                tasks.start_soon(drain)
                await draining.wait()
                gate.open.set()
    async with harness(tmp_path, upstream) as restarted:
        again = await restarted.result("createOrder", KEYED)
    assert results[0].structured == again.structured == {"id": "o1"}
    assert len(upstream.requests) == 1


async def test_a_long_call_finishes_and_stores_its_result_within_the_drain(
    tmp_path: Path, upstream: Upstream, gate: Gate
) -> None:
    async with harness(tmp_path, upstream, calls={"long": True, "wait": 0.2}) as service:
        pending = await service.result("createOrder", ORDER)
        with anyio.fail_after(30):
            await anyio.to_thread.run_sync(gate.arrived.wait, 30)
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(service.service.drain, 20)
                await anyio.wait_all_tasks_blocked()
                gate.open.set()
        call_id = pending.text.split("call id ")[1].split(")")[0]
        store = await service.ledger.open()
        claim = await store.get_claim(call_key("shop", "", call_id), time.time())
    assert pending.code is ErrorCode.CALL_PENDING
    assert claim is not None and claim.state is ClaimState.DONE
    assert claim.result["structured"] == {"id": "o1"}


async def test_a_long_call_still_running_when_the_drain_ends_is_outcome_unknown_never_resent(
    tmp_path: Path, upstream: Upstream, gate: Gate
) -> None:
    async with harness(tmp_path, upstream, calls={"long": True, "wait": 0.2}) as service:
        pending = await service.result("createOrder", ORDER)
        with anyio.fail_after(30):
            await anyio.to_thread.run_sync(gate.arrived.wait, 30)
            assert not await service.service.drain(0)
            await service.service.aclose()
        gate.open.set()
    async with harness(tmp_path, upstream, calls={"long": True, "wait": 0.2}) as restarted:
        again = await restarted.result("createOrder", ORDER)
    assert pending.code is ErrorCode.CALL_PENDING
    assert again.code is ErrorCode.CALL_OUTCOME_UNKNOWN
    assert len(upstream.requests) == 1


async def test_idle_waits_for_every_busy_call_counted_once_however_deep() -> None:
    stopping = Stopping()
    with stopping.busy(), stopping.busy():
        assert stopping.calls == 1
        assert not await stopping.idle(0)
    assert stopping.calls == 0
    assert await stopping.idle(0)


async def test_a_cut_ends_at_the_stop_and_one_made_after_it_ends_at_once() -> None:
    stopping = Stopping()

    async def stop_soon() -> None:
        await anyio.wait_all_tasks_blocked()
        stopping.stop()

    with anyio.fail_after(10):
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(stop_soon)
            with stopping.cut() as cut:
                await anyio.sleep_forever()
    assert cut.cancelled_caught
    with stopping.cut() as after:
        await anyio.sleep_forever()
    assert after.cancelled_caught


async def test_the_approved_calls_sender_starts_nothing_after_a_stop_and_finishes_what_it_sends(
    tmp_path: Path, upstream: Upstream, gate: Gate
) -> None:
    async with harness(tmp_path, upstream, tools=TOOLS, approvals={"wait": 0}) as service:
        sender = service.service.sender
        first = await approved_while_nobody_waits(service)
        with anyio.fail_after(30):
            async with anyio.create_task_group() as tasks:
                assert await sender.sweep(served(service), tasks) == 1
                await anyio.to_thread.run_sync(gate.arrived.wait, 30)  # on the wire
                assert service.service.stopping.calls == 1  # the drain waits for it
                tasks.start_soon(service.service.drain, 20)
                await anyio.wait_all_tasks_blocked()
                gate.open.set()
        desk = service.ledger.current().desk
        sent = await desk.get(first.id)
        later = await service.ledger.approvals_for("shop").request(
            "shop", "createOrder", "", {**ORDER, "quantity": 5}, {}, fingerprint="asked-before-the-stop"
        )
        second = await desk.approve(later.id, "alice")  # answered after the stop
        started = await sender.sweep(served(service))
        still = await desk.get(second.id)
    assert sent.status is Status.DONE and sent.result["structured"] == {"id": "o1"}
    assert started == 0 and still.status is Status.APPROVED  # left for another instance
    assert len(upstream.requests) == 1


async def test_a_keyed_call_still_on_the_wire_when_the_drain_ends_says_it_was_sent_outcome_unknown(
    tmp_path: Path, upstream: Upstream, gate: Gate
) -> None:
    async with harness(tmp_path, upstream) as service:
        results: list[CallResult] = []

        async def order() -> None:
            results.append(await service.result("createOrder", KEYED))

        with anyio.fail_after(30):
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(order)
                await anyio.to_thread.run_sync(gate.arrived.wait, 30)
                assert not await service.service.drain(0.2)  # its time is up with the call on the wire
        gate.open.set()
        opened = await service.ledger.open()
        name = store_key(service.request("createOrder", KEYED).scope, "order-1")
        kept = await opened.get_claim(name, time.time())
    (told,) = results
    assert (told.is_error, told.code) == (True, ErrorCode.CALL_OUTCOME_UNKNOWN)
    assert "it was sent" in told.text and "not sent again" in told.text
    assert kept is not None and kept.state is ClaimState.UNKNOWN  # never sent again
    assert len(upstream.requests) == 1
