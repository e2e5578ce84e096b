"""Long calls (service/_long_calls.py): the claim and its background work, found again by the call's
fingerprint from any instance sharing the store (the repeat attaches, never sends again), its result
from the store on another instance, and outcome unknown when stopped."""

from __future__ import annotations

import time
from pathlib import Path

import anyio

from specbridge import ErrorCode
from specbridge.call import CallResult
from specbridge.config import config_from_data
from specbridge.service._long_calls import LongCalls, Running, call_key, running_key
from specbridge.service._once import result_json
from specbridge.store import ClaimState, Store
from tests.service._harness import ORDER, harness
from tests.support.upstream import Gate, Upstream

SCOPE = ("shop", "bot", "createOrder")
ANSWER = CallResult('{"id": "o1"}', status=201, structured={"id": "o1"})
CONFIG = config_from_data({"apis": {}}, source="specbridge.yaml")


def calls(owner: str = "me") -> LongCalls:
    return LongCalls(lambda: CONFIG, owner)


async def test_a_call_done_within_its_wait_answers_its_result_and_is_then_forgotten(store: Store) -> None:
    long = calls()

    async def work(running: Running) -> CallResult:
        await running.keep(ANSWER, result_json(ANSWER))
        return ANSWER

    result = await long.start(store, SCOPE, "call-1", work, lease=60, keep=3600, wait=5)
    assert result == ANSWER
    # handed out: the same call again is a new one, on this instance and on any other
    assert await long.attach(store, SCOPE, "call-1", wait=0) is None
    assert await store.get_claim(running_key("shop", "bot", "call-1"), time.time()) is None


async def test_a_call_past_its_wait_is_pending_found_again_and_its_result_read_on_another_instance(
    store: Store,
) -> None:
    long, other = calls(), calls("other-instance")
    release = anyio.Event()

    async def work(running: Running) -> CallResult:
        await release.wait()
        await running.keep(ANSWER, result_json(ANSWER))
        return ANSWER

    pending = await long.start(store, SCOPE, "call-1", work, lease=60, keep=3600, wait=0)
    assert pending.code is ErrorCode.CALL_PENDING
    (running,) = long._running.values()
    assert running.id in pending.text
    still = await other.result(store, "shop", "bot", running.id, wait=0)
    assert still.code is ErrorCode.CALL_PENDING
    release.set()
    with anyio.fail_after(10):
        assert await long.wait(running, 10) == ANSWER
    assert await other.result(store, "shop", "bot", running.id, wait=0) == ANSWER
    unknown = await other.result(store, "shop", "another-client", running.id, wait=0)
    assert unknown.code is ErrorCode.CALL_NOT_FOUND


async def test_a_call_stopped_with_the_gateway_is_outcome_unknown_in_the_store(store: Store) -> None:
    long = calls()
    started = anyio.Event()

    async def work(running: Running) -> CallResult:
        started.set()
        await anyio.sleep_forever()
        raise AssertionError

    pending = await long.start(store, SCOPE, "call-1", work, lease=60, keep=3600, wait=0)
    await started.wait()
    (running,) = long._running.values()
    assert pending.code is ErrorCode.CALL_PENDING
    await long.aclose()
    claim = await store.get_claim(call_key("shop", "bot", running.id), time.time())
    assert claim is not None and claim.state is ClaimState.UNKNOWN
    assert running.result is not None and running.result.code is ErrorCode.CALL_OUTCOME_UNKNOWN


async def test_the_same_call_again_waits_for_the_running_one_instead_of_sending_again(
    tmp_path: Path, upstream: Upstream
) -> None:
    gate = Gate()
    upstream.route("/shops/s1/orders", gate.reply({"id": "o-slow"}, status=201))
    async with harness(tmp_path, upstream, calls={"long": True, "wait": 0.2}) as service:
        first = await service.result("createOrder", ORDER)
        again = await service.result("createOrder", ORDER)
        gate.open.set()
        with anyio.fail_after(20):
            while (done := await service.result("createOrder", ORDER)).code is ErrorCode.CALL_PENDING:
                pass
    assert first.code is again.code is ErrorCode.CALL_PENDING
    assert first.text == again.text  # the same call id
    assert done.structured == {"id": "o-slow"}
    assert len(upstream.requests) == 1


async def test_the_same_call_on_another_instance_attaches_to_the_running_one_and_gets_its_result_once(
    store: Store,
) -> None:
    long, other = calls(), calls("other-instance")
    release, sent = anyio.Event(), []

    async def work(running: Running) -> CallResult:
        sent.append(running.id)
        await release.wait()
        await running.keep(ANSWER, result_json(ANSWER))
        return ANSWER

    pending = await long.start(store, SCOPE, "call-1", work, lease=60, keep=3600, wait=0)
    attached = await other.attach(store, SCOPE, "call-1", wait=0)
    assert attached is not None and attached.code is ErrorCode.CALL_PENDING
    assert attached.text == pending.text  # the same call id
    assert await other.attach(store, SCOPE, "another-call", wait=0) is None
    release.set()
    with anyio.fail_after(10):
        assert await other.attach(store, SCOPE, "call-1", wait=10) == ANSWER
    assert await other.attach(store, SCOPE, "call-1", wait=0) is None  # handed out: a new call next
    assert len(sent) == 1


async def test_two_instances_starting_the_same_call_at_once_send_it_once(store: Store) -> None:
    long, other = calls(), calls("other-instance")
    sent: list[str] = []
    release = anyio.Event()

    async def work(running: Running) -> CallResult:
        sent.append(running.id)
        await release.wait()
        await running.keep(ANSWER, result_json(ANSWER))
        return ANSWER

    answers: list[CallResult] = []

    async def start(instance: LongCalls) -> None:
        answers.append(await instance.start(store, SCOPE, "call-1", work, lease=60, keep=3600, wait=0))

    with anyio.fail_after(20):
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(start, long)
            tasks.start_soon(start, other)
    assert [answer.code for answer in answers] == [ErrorCode.CALL_PENDING] * 2
    assert answers[0].text == answers[1].text
    assert len(sent) == 1
    release.set()


async def test_the_same_call_after_its_instance_died_is_outcome_unknown_and_not_sent_again(
    store: Store,
) -> None:
    clock = [time.time()]
    dead = LongCalls(lambda: CONFIG, "dead-instance", clock=lambda: clock[0])
    started = anyio.Event()

    async def work(running: Running) -> CallResult:
        started.set()
        await anyio.sleep_forever()
        raise AssertionError

    await dead.start(store, SCOPE, "call-1", work, lease=60, keep=3600, wait=0)
    await started.wait()  # it is sending; then its process vanishes, and its lease passes
    clock[0] += 120
    other = LongCalls(lambda: CONFIG, "other-instance", clock=lambda: clock[0])
    unknown = await other.attach(store, SCOPE, "call-1", wait=0)
    assert unknown is not None and unknown.code is ErrorCode.CALL_OUTCOME_UNKNOWN
    assert "not sent again" in unknown.text
    await dead.aclose()


async def test_a_stop_ends_the_wait_for_a_running_call_with_call_pending_and_lets_it_finish(
    store: Store,
) -> None:
    long = calls()
    release = anyio.Event()

    async def work(running: Running) -> CallResult:
        await release.wait()
        await running.keep(ANSWER, result_json(ANSWER))
        return ANSWER

    async def stop_once_waiting() -> None:
        await anyio.wait_all_tasks_blocked()
        long.stopping.stop()

    with anyio.fail_after(10):
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(stop_once_waiting)
            pending = await long.start(store, SCOPE, "call-1", work, lease=60, keep=3600, wait=60)
    assert pending.code is ErrorCode.CALL_PENDING
    (running,) = long._running.values()
    release.set()
    with anyio.fail_after(10):
        assert await long.finish(10)
    claim = await store.get_claim(call_key("shop", "bot", running.id), time.time())
    assert claim is not None and claim.state is ClaimState.DONE


async def test_the_repeat_of_a_long_call_on_a_second_instance_gets_its_call_id_and_sends_nothing(
    tmp_path: Path, upstream: Upstream, store_url: str
) -> None:
    gate = Gate()
    upstream.route("/shops/s1/orders", gate.reply({"id": "o-slow"}, status=201))
    settings = {"calls": {"long": True, "wait": 0.2}}
    async with (
        harness(tmp_path / "one", upstream, store_url, **settings) as one,
        harness(tmp_path / "two", upstream, store_url, **settings) as two,
    ):
        first = await one.result("createOrder", ORDER)
        with anyio.fail_after(20):
            await anyio.to_thread.run_sync(gate.arrived.wait, 20)  # on the wire, held
        again = await two.result("createOrder", ORDER)
        gate.open.set()
        with anyio.fail_after(20):
            while (done := await two.result("createOrder", ORDER)).code is ErrorCode.CALL_PENDING:
                pass
        after = await one.result("createOrder", ORDER, deadline=60)  # handed out: a new call
        gate.arrived.clear()
    assert first.code is again.code is ErrorCode.CALL_PENDING
    assert first.text == again.text  # the same call id
    assert done.structured == {"id": "o-slow"}
    assert after.structured == {"id": "o-slow"}
    assert len(upstream.requests) == 2  # the call, and the new call after the result was handed out
