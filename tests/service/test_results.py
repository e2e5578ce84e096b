"""A call's result as the store keeps it, and what a store failure during a call tells the agent
(service/_results.py)."""

from __future__ import annotations

from specbridge import ErrorCode
from specbridge.call import CallResult, ImageContent
from specbridge.service._once import result_json
from specbridge.service._results import result_from_json, store_too_slow, store_unavailable
from specbridge.store import StoreError


def test_a_result_comes_back_from_the_store_as_it_went_in() -> None:
    result = CallResult(
        "done", status=201, structured={"id": "o1"}, image=ImageContent(b"\x89PNG", "image/png")
    )
    failed = CallResult("no such order", is_error=True, code=ErrorCode.UPSTREAM_STATUS, status=404)
    assert result_from_json(result_json(result)) == result
    assert result_from_json(result_json(failed)) == failed


def test_a_store_failure_says_what_is_known_of_the_send_and_nothing_more() -> None:
    error = StoreError("sqlite:///state.db: database is locked")
    alone = store_unavailable(error, alone=True)  # a call with nothing to look up: nothing was sent
    before = store_unavailable(error)  # an earlier identical call may have been sent: it cannot tell
    after = store_unavailable(error, sent=CallResult('{"id": "o1"}', status=201))
    slow = store_too_slow()
    assert alone.code is before.code is after.code is slow.code is ErrorCode.STORE_UNAVAILABLE
    assert alone.is_error and before.is_error and after.is_error
    assert "nothing was sent" in alone.text and "state.db" not in alone.text
    assert "nothing was sent" not in before.text and "cannot be read until the store is back" in before.text
    assert slow.text == before.text
    assert "the request was sent (the API answered 201)" in after.text and '{"id": "o1"}' in after.text
    assert after.status == 201
