"""Step 5, the approval as a value (service/_approval.py), on a real store, with the rest of the line
around it where a call's result matters: pending, approved, rejected, expired, the client's user asked,
an approval too large to show the user, a wait cut to the call's deadline."""

from __future__ import annotations

import asyncio
from pathlib import Path

import anyio
import pytest

from specbridge import ErrorCode
from specbridge.call import CallResult
from specbridge.service import Asking, Question
from specbridge.service._approval import Approved, approve
from specbridge.service._planning import plan
from specbridge.service._request import Ready
from specbridge.service._resolving import check, resolve
from specbridge.store import Condition, Status
from tests.service._harness import ORDER, Harness, harness
from tests.support.notice import reads_pending
from tests.support.upstream import Upstream, json_response

TOOLS = {"createOrder": {"requires_approval": True}}


@pytest.fixture(autouse=True)
def upstream_routes(upstream: Upstream) -> None:
    upstream.route("/shops/s1/orders", json_response({"id": "o1"}, status=201))


async def ready(service: Harness, arguments: dict[str, object] = ORDER, **options: object) -> Ready:
    """Steps 1-4 of a `createOrder` call, as the line runs them before the approval."""
    planned = plan(service.request("createOrder", arguments, **options))  # type: ignore[arg-type]
    assert not isinstance(planned, CallResult)
    checked = await check(planned)
    assert not isinstance(checked, CallResult)
    made = await resolve(checked, service.files)
    assert isinstance(made, Ready)
    return made


async def test_no_answer_within_the_wait_is_pending_with_the_id_and_the_values_kept_apart(
    tmp_path: Path, upstream: Upstream
) -> None:
    async with harness(tmp_path, upstream, tools=TOOLS, approvals={"wait": 0}) as service:
        result = await service.result("createOrder", ORDER)
        (pending,) = await service.ledger.current().desk.list(Status.PENDING)
    assert (result.is_error, result.code) == (True, ErrorCode.APPROVAL_PENDING)
    assert pending.id in result.text and "nothing was sent" in result.text
    assert (pending.arguments, pending.bound, pending.client) == (ORDER, {}, "")
    assert upstream.requests == []


async def test_an_answer_at_the_desk_wakes_the_waiting_call_which_sends_once(
    tmp_path: Path, upstream: Upstream
) -> None:
    async with harness(tmp_path, upstream, tools=TOOLS, approvals={"wait": 30}) as service:
        opened = await service.ledger.open()
        waiting = reads_pending(opened)

        async def approve_when_asked() -> None:
            await waiting.wait()  # the call read its approval as pending: it waits for the answer now
            (pending,) = await service.ledger.current().desk.list(Status.PENDING)
            await service.ledger.current().desk.approve(pending.id, "alice")

        with anyio.fail_after(20):
            result, _ = await asyncio.gather(service.result("createOrder", ORDER), approve_when_asked())
        (done,) = await service.ledger.current().desk.list(Status.DONE)
    assert result.structured == {"id": "o1"}
    assert (done.answered_by, done.result["structured"]) == ("alice", {"id": "o1"})
    assert len(upstream.requests) == 1


async def test_approved_later_the_same_call_gets_the_result_and_within_the_window_gets_it_again(
    tmp_path: Path, upstream: Upstream
) -> None:
    async with harness(tmp_path, upstream, tools=TOOLS, approvals={"wait": 0}) as service:
        first = await service.result("createOrder", ORDER)
        assert await service.result("createOrder", ORDER) == first  # attached, not a duplicate
        (pending,) = await service.ledger.current().desk.list(Status.PENDING)
        await service.ledger.current().desk.approve(pending.id, "alice")
        done = await service.result("createOrder", ORDER)
        again = await service.result("createOrder", ORDER)
    assert done.structured == again.structured == {"id": "o1"}
    assert "already sent" in again.text and pending.id in again.text
    assert len(upstream.requests) == 1


async def test_a_rejection_gives_its_reason_once_and_a_redraft_is_a_new_approval(
    tmp_path: Path, upstream: Upstream
) -> None:
    async with harness(tmp_path, upstream, tools=TOOLS, approvals={"wait": 0}) as service:
        await service.result("createOrder", ORDER)
        (pending,) = await service.ledger.current().desk.list(Status.PENDING)
        await service.ledger.current().desk.reject(pending.id, "bob", "  orders over 1 need a ticket  ")
        rejected = await service.result("createOrder", ORDER)
        redraft = await service.result("createOrder", ORDER)
    assert rejected.code is ErrorCode.APPROVAL_REJECTED
    assert "orders over 1 need a ticket" in rejected.text and pending.id in rejected.text
    assert redraft.code is ErrorCode.APPROVAL_PENDING and pending.id not in redraft.text
    assert upstream.requests == []


async def test_an_api_error_after_approval_is_the_calls_result_and_kept_as_failed_with_its_status(
    tmp_path: Path, upstream: Upstream
) -> None:
    upstream.route("/shops/s1/orders", json_response({"error": "no such shop"}, status=404))
    async with harness(tmp_path, upstream, tools=TOOLS, approvals={"wait": 0}) as service:
        await service.result("createOrder", ORDER)
        (pending,) = await service.ledger.current().desk.list(Status.PENDING)
        await service.ledger.current().desk.approve(pending.id, "alice")
        failed = await service.result("createOrder", ORDER)
        kept = await service.ledger.current().desk.get(pending.id)
    assert (failed.is_error, failed.code, failed.status) == (True, ErrorCode.UPSTREAM_STATUS, 404)
    assert (kept.status, kept.result["status"]) == (Status.FAILED, 404)


async def test_two_instances_with_calls_waiting_on_one_approval_send_it_once(
    tmp_path: Path, upstream: Upstream, store_url: str
) -> None:
    async with (
        harness(tmp_path / "one", upstream, store_url, tools=TOOLS, approvals={"wait": 30}) as one,
        harness(tmp_path / "two", upstream, store_url, tools=TOOLS, approvals={"wait": 30}) as two,
    ):
        opened = await one.ledger.open()
        await two.ledger.open()
        waiting = reads_pending(opened)
        with anyio.fail_after(30):
            calls = [asyncio.create_task((one, two)[n % 2].result("createOrder", ORDER)) for n in range(6)]
            await waiting.wait()
            (pending,) = await one.ledger.current().desk.list(Status.PENDING)
            await two.ledger.current().desk.approve(pending.id, "alice")
            results = await asyncio.gather(*calls)
    assert [result.structured for result in results] == [{"id": "o1"}] * 6
    assert len(upstream.requests) == 1


async def test_the_wait_ends_early_enough_for_the_send_to_fit_the_call_deadline(
    tmp_path: Path, upstream: Upstream
) -> None:
    """The approval waits 60 s, but with 3 s of the deadline left and a 2.5 s upstream timeout it may not
    wait at all: the approved call's send must still fit."""
    tools = {"createOrder": {"requires_approval": True, "timeout": 2.5}}
    async with harness(tmp_path, upstream, tools=tools, approvals={"wait": 60}) as service:
        with anyio.fail_after(30):
            result = await service.result("createOrder", ORDER, deadline=3)
    assert result.code is ErrorCode.APPROVAL_PENDING


async def test_a_call_being_sent_by_another_says_so_and_after_its_lease_is_outcome_unknown(
    tmp_path: Path, upstream: Upstream
) -> None:
    async with harness(tmp_path, upstream, tools=TOOLS, approvals={"wait": 0}) as service:
        await service.result("createOrder", ORDER)
        desk = service.ledger.current().desk
        (pending,) = await desk.list(Status.PENDING)
        await desk.approve(pending.id, "alice")
        opened = await service.ledger.open()
        # another instance claimed it and vanished without a word
        when = Condition(statuses=frozenset({Status.APPROVED}))
        await opened.update_approval(
            pending.id, when, {"status": Status.EXECUTING, "owner": "vanished", "lease_until": 4e9}
        )
        being_sent = await service.result("createOrder", ORDER)
        await opened.update_approval(
            pending.id, Condition(statuses=frozenset({Status.EXECUTING})), {"lease_until": 1.0}
        )
        unknown = await service.result("createOrder", ORDER)
    assert being_sent.code is ErrorCode.APPROVAL_PENDING and "being sent" in being_sent.text
    assert unknown.code is ErrorCode.APPROVAL_OUTCOME_UNKNOWN
    assert upstream.requests == []


async def test_approved_the_step_answers_approved_and_sends_nothing_itself(
    tmp_path: Path, upstream: Upstream
) -> None:
    async with harness(tmp_path, upstream, tools=TOOLS, approvals={"wait": 0}) as service:
        made = await ready(service)
        await service.ledger.open()
        for_api = service.ledger.current().desk.for_api("shop")
        first = await approve(made, for_api, None, asked=False, until=None)
        assert isinstance(first, CallResult) and first.code is ErrorCode.APPROVAL_PENDING
        (pending,) = await for_api.list(Status.PENDING)
        await for_api.approve(pending.id, "alice")
        second = await approve(made, for_api, None, asked=False, until=None)
    assert isinstance(second, Approved) and second.approval.id == pending.id
    assert second.approval.status is Status.APPROVED  # not claimed: that is step 6
    assert upstream.requests == []


async def test_by_client_the_user_is_asked_and_their_answer_is_recorded_as_theirs(
    tmp_path: Path, upstream: Upstream
) -> None:
    async with harness(tmp_path, upstream, tools=TOOLS, approvals={"by": "client", "wait": 5}) as service:
        await service.ledger.open()
        for_api = service.ledger.current().desk.for_api("shop")
        made = await ready(service, asking=Asking(can_ask=True))
        asked = await approve(made, for_api, None, asked=False, until=None)
        assert isinstance(asked, Question)
        declined = await approve(made, for_api, "decline", asked=False, until=None)
        stored = await for_api.get(asked.approval)
    assert isinstance(declined, CallResult) and declined.code is ErrorCode.APPROVAL_REJECTED
    assert "the client's user declined the call" in declined.text
    assert (stored.answered_by, stored.status) == ("client:anonymous", Status.REJECTED)


async def test_an_approval_too_large_to_show_the_user_goes_to_the_operator_and_says_so(
    tmp_path: Path, upstream: Upstream
) -> None:
    arguments = {"orders": [{"product": f"p{n}", "quantity": n} for n in range(150)]}  # 300 values
    tools = {"importOrders": {"requires_approval": True}}
    async with harness(tmp_path, upstream, tools=tools, approvals={"by": "client", "wait": 0}) as service:
        result = await service.call("importOrders", arguments, asking=Asking(can_ask=True))
    assert isinstance(result, CallResult) and result.code is ErrorCode.APPROVAL_PENDING
    assert "too many or too long to show the client's user, so an operator answers it" in result.text


async def test_a_client_that_cannot_be_asked_gets_the_operator_flow(
    tmp_path: Path, upstream: Upstream
) -> None:
    async with harness(tmp_path, upstream, tools=TOOLS, approvals={"by": "client", "wait": 0}) as service:
        result = await service.call("createOrder", ORDER, asking=Asking(can_ask=False, answer="accept"))
    assert isinstance(result, CallResult) and result.code is ErrorCode.APPROVAL_PENDING
    assert upstream.requests == []
