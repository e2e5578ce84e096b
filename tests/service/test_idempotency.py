"""Idempotency keys on the store (service/_idempotency.py): which tools take a key, the key apart from the
arguments, and its three store steps (look up, claim, record) on each backend."""

from __future__ import annotations

import time
from pathlib import Path

from specbridge import ErrorCode
from specbridge.call import CallResult
from specbridge.service import Deadline
from specbridge.service._idempotency import (
    KEY_ARGUMENT,
    KeyPlan,
    claim_key,
    key_plan,
    look_up,
    record,
    split_key,
    store_key,
    wait_key,
    with_key_argument,
)
from specbridge.service._once import result_json
from specbridge.store import Store
from tests.service._harness import harness
from tests.support.upstream import Upstream

SCOPE = ("shop", "bot", "createOrder")
NAME = store_key(SCOPE, "k-1")
ANSWER = CallResult('{"id": "o1"}', status=201, structured={"id": "o1"})
NOW = Deadline.after(0)  # no wait left


async def claimed(store: Store, owner: str = "me", call: str = "call-1") -> str | CallResult:
    return await claim_key(store, NAME, owner, call, lease=60, ttl=3600, until=NOW, clock=time.time)


async def test_a_free_key_is_claimed_then_its_result_is_what_every_later_look_answers(store: Store) -> None:
    assert await look_up(store, NAME, "call-1", time.time()) is None
    assert await claimed(store) == NAME  # this call sends
    held = await claimed(store, owner="other")  # while the first runs (no wait left)
    assert held is not None and held.code is ErrorCode.CALL_PENDING
    await record(store, NAME, "me", ANSWER, result_json(ANSWER), time.time())
    assert await look_up(store, NAME, "call-1", time.time()) == ANSWER
    assert await claimed(store, owner="other") == ANSWER


async def test_a_held_key_is_waited_for_and_read_again_until_settled(store: Store) -> None:
    assert await wait_key(store, NAME, "call-1", until=NOW, clock=time.time) is None  # free
    assert await claimed(store) == NAME
    held = await wait_key(store, NAME, "call-1", until=NOW, clock=time.time)
    assert held is not None and held.code is ErrorCode.CALL_PENDING
    await record(store, NAME, "me", ANSWER, result_json(ANSWER), time.time())
    assert await wait_key(store, NAME, "call-1", until=Deadline.after(30), clock=time.time) == ANSWER


async def test_a_key_used_for_another_call_is_refused(store: Store) -> None:
    assert await claimed(store) == NAME
    await record(store, NAME, "me", ANSWER, result_json(ANSWER), time.time())
    reused = await look_up(store, NAME, "another-call", time.time())
    assert reused is not None and reused.code is ErrorCode.IDEMPOTENCY_KEY_REUSED


async def test_a_result_that_may_have_had_an_effect_spends_the_key_and_a_refusal_frees_it(
    store: Store,
) -> None:
    assert await claimed(store) == NAME
    timeout = CallResult("no answer in time", is_error=True, code=ErrorCode.UPSTREAM_TIMEOUT)
    await record(store, NAME, "me", timeout, result_json(timeout), time.time())
    spent = await look_up(store, NAME, "call-1", time.time())
    assert spent is not None and spent.code is ErrorCode.IDEMPOTENCY_OUTCOME_UNKNOWN
    refused = CallResult("egress refused", is_error=True, code=ErrorCode.EGRESS_REFUSED)
    second = store_key(SCOPE, "k-2")
    other = await claim_key(store, second, "me", "c", lease=60, ttl=3600, until=NOW, clock=time.time)
    assert other == store_key(SCOPE, "k-2")
    await record(store, other, "me", refused, result_json(refused), time.time())
    assert (
        await look_up(store, store_key(SCOPE, "k-2"), "c", time.time()) is None
    )  # nothing was sent: free again


async def test_which_tools_take_a_key_and_how_the_agent_sees_it(tmp_path: Path, upstream: Upstream) -> None:
    async with harness(tmp_path, upstream) as service:
        order, product, payment = (
            service.tool(name) for name in ("createOrder", "getProduct", "createPayment")
        )
        assert key_plan(service.api, order) == KeyPlan()
        assert key_plan(service.api, product) is None  # a GET is idempotent already
        assert key_plan(service.api, payment) == KeyPlan("header.Idempotency-Key", "Idempotency-Key", False)
    schema = with_key_argument({"type": "object", "properties": {}}, KeyPlan(required=True))
    assert schema["required"] == [KEY_ARGUMENT] and KEY_ARGUMENT in schema["properties"]


def test_the_key_comes_out_of_the_arguments_and_the_apis_own_field_is_taken_as_the_key() -> None:
    assert split_key({"a": 1, KEY_ARGUMENT: "k"}, KeyPlan()) == ("k", {"a": 1})
    assert split_key(
        {"a": 1, "Idempotency-Key": "mine"}, KeyPlan("header.Idempotency-Key", "Idempotency-Key")
    ) == (
        "mine",
        {"a": 1},
    )
    bad = split_key({KEY_ARGUMENT: "tab\there"}, KeyPlan())
    assert isinstance(bad, CallResult) and bad.code is ErrorCode.ARGUMENTS_INVALID
