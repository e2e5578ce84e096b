"""Long calls (service/_long_calls.py): the claim and its background work, found again by the call's
fingerprint, its result from the store on another instance, and outcome unknown when stopped."""

from __future__ import annotations

import time
from pathlib import Path

import anyio

from specbridge import ErrorCode
from specbridge.call import CallResult
from specbridge.config import config_from_data
from specbridge.service._long_calls import LongCalls, Running, call_key
from specbridge.service._once import result_json
from specbridge.store import ClaimState, Store
from tests.service.conftest import ORDER, harness
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
    assert long.find(SCOPE, "call-1") is None  # handed out: the same call again is a new one


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
    running = long.find(SCOPE, "call-1")
    assert running is not None and running.id in pending.text
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
    running = long.find(SCOPE, "call-1")
    assert running is not None and pending.code is ErrorCode.CALL_PENDING
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
