"""The call service's whole line (service/_service.py) in process: what one call does, counted, and
where it ends when a step refuses, the store fails or the tool changed under an approval."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from specbridge import ErrorCode
from specbridge.call import CallResult, Plans, checked
from specbridge.document import load_document
from specbridge.service import Asking, Question
from specbridge.service._fingerprint import fingerprint
from specbridge.service._once import result_json
from specbridge.store import Status, StoreError
from specbridge.tools import convert
from tests.service._harness import ORDER, SERVICE_SPEC, Harness, counted, harness
from tests.support.upstream import Upstream, json_response


@pytest.fixture(autouse=True)
def upstream_routes(upstream: Upstream) -> None:
    upstream.route("/shops/s1/orders", json_response({"id": "o1"}, status=201))
    upstream.route("/payments", json_response({"id": "pay1"}))
    upstream.route("/shop2/s1/orders", json_response({"id": "moved"}, status=201))


async def approve_pending(service: Harness) -> str:
    (pending,) = await service.ledger.current().desk.list(Status.PENDING)
    await service.ledger.current().desk.approve(pending.id, "alice")
    return pending.id


async def test_one_call_with_approval_and_a_key_plans_checks_fingerprints_and_serialises_once(
    tmp_path: Path, upstream: Upstream
) -> None:
    tools = {"createPayment": {"requires_approval": True}}
    async with harness(tmp_path, upstream, tools=tools, approvals={"wait": 0}) as service:
        arguments = {"amount": 5, "idempotency_key": "pay-1"}
        pending = await service.result("createPayment", arguments)
        assert pending.code is ErrorCode.APPROVAL_PENDING
        await approve_pending(service)
        with counted(Plans.plan, checked, fingerprint, result_json) as counts:
            done = await service.result("createPayment", arguments)
        again = await service.result("createPayment", arguments)  # the key's stored result
    assert done.structured == again.structured == {"id": "pay1"}
    assert counts == {"plan": 1, "checked": 1, "fingerprint": 1, "result_json": 1}
    assert len(upstream.requests) == 1


async def test_a_call_without_key_approval_or_long_call_never_opens_the_store(
    tmp_path: Path, upstream: Upstream
) -> None:
    async with harness(tmp_path, upstream) as service:
        done = await service.result("createOrder", ORDER)
        assert service.ledger.store is None
    assert done.structured == {"id": "o1"}


async def test_a_refusal_before_the_claim_leaves_a_key_free(tmp_path: Path, upstream: Upstream) -> None:
    async with harness(tmp_path, upstream) as service:
        refused = await service.result("createOrder", {**ORDER, "quantity": 0, "idempotency_key": "k"})
        sent = await service.result("createOrder", {**ORDER, "idempotency_key": "k"})
    assert refused.code is ErrorCode.ARGUMENTS_INVALID
    assert sent.structured == {"id": "o1"}


def failing(target: object, name: str) -> None:
    """`target.name` (an async method of a real store) fails as a store that cannot be reached."""

    async def fails(*args: Any, **kwargs: Any) -> Any:
        raise StoreError("the store cannot be reached (test)")

    setattr(target, name, fails)


async def test_a_store_failing_before_the_send_is_store_unavailable_and_never_claims_nothing_was_sent(
    tmp_path: Path, upstream: Upstream, store_url: str
) -> None:
    async with harness(tmp_path, upstream, store_url) as service:
        opened = await service.ledger.open()
        failing(opened, "claim")
        result = await service.result("createOrder", {**ORDER, "idempotency_key": "k"})
    assert (result.is_error, result.code) == (True, ErrorCode.STORE_UNAVAILABLE)
    assert "nothing was sent" not in result.text  # the key may have been sent before: it cannot tell
    assert upstream.requests == []


async def test_a_store_failing_after_the_send_says_the_request_was_sent_and_what_came_back(
    tmp_path: Path, upstream: Upstream, store_url: str
) -> None:
    async with harness(tmp_path, upstream, store_url) as service:
        opened = await service.ledger.open()
        failing(opened, "complete")
        result = await service.result("createOrder", {**ORDER, "idempotency_key": "k"})
    assert (result.is_error, result.code, result.status) == (True, ErrorCode.STORE_UNAVAILABLE, 201)
    assert "the request was sent" in result.text and "outcome could not be recorded" in result.text
    assert '"o1"' in result.text
    assert len(upstream.requests) == 1


async def test_a_changed_operation_voids_the_approval_given_for_the_old_one(
    tmp_path: Path, upstream: Upstream
) -> None:
    tools = {"createOrder": {"requires_approval": True}}
    async with harness(tmp_path, upstream, tools=tools, approvals={"wait": 0}) as service:
        await service.result("createOrder", ORDER)
        approved = await approve_pending(service)
        # a reload: the document now sends the same tool somewhere else
        moved = tmp_path / "moved.yaml"
        moved.write_text(SERVICE_SPEC.replace("/shops/{shopId}/orders:", "/shop2/{shopId}/orders:"), "utf-8")
        service.toolset = convert(load_document(str(moved)))
        result = await service.result("createOrder", ORDER)
    assert result.code is ErrorCode.APPROVAL_PENDING
    assert approved not in result.text
    assert upstream.requests == []


async def test_the_clients_user_is_asked_as_a_value_and_the_retry_with_the_answer_is_sent(
    tmp_path: Path, upstream: Upstream
) -> None:
    tools = {"createOrder": {"requires_approval": True}}
    top = {"approvals": {"by": "client"}, "calls": {"long": True, "wait": 5}}
    async with harness(tmp_path, upstream, tools=tools, **top) as service:
        asked = await service.call("createOrder", ORDER, asking=Asking(can_ask=True))
        assert isinstance(asked, Question)
        assert upstream.requests == []
        done = await service.result("createOrder", ORDER, asking=Asking(can_ask=True, answer="accept"))
    assert '"quantity":2' in asked.text
    assert done.structured == {"id": "o1"}
    assert len(upstream.requests) == 1


async def test_a_question_resumed_with_the_users_answer_goes_on_to_the_send(
    tmp_path: Path, upstream: Upstream
) -> None:
    tools = {"createOrder": {"requires_approval": True}}
    async with harness(tmp_path, upstream, tools=tools, approvals={"by": "client", "wait": 5}) as service:
        asked = await service.call("createOrder", ORDER, asking=Asking(can_ask=True))
        assert isinstance(asked, Question)
        done = await service.service.resume(asked, "accept")
        (record,) = await service.ledger.current().desk.list(Status.DONE)
    assert isinstance(done, CallResult) and done.structured == {"id": "o1"}
    assert record.answered_by == "client:anonymous"
