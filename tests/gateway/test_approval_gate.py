"""`ApprovalGate`: the config's `approvals:` on the store around one tool call, as the MCP server runs it
for a `requires_approval` tool: per-API settings, results kept and handed back as CallResults, the wait
shortened to fit the call deadline, answers through the desk waking the waiting call."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from specbridge import ErrorCode
from specbridge.call import Caller, CallResult, ImageContent
from specbridge.config import config_from_data
from specbridge.document import parse_document
from specbridge.service import ApprovalGate
from specbridge.store import Status, Store, open_store
from specbridge.tools import convert
from tests.support.notice import reads_pending

ARGS = {"orderId": "o-1"}
CONFIG = {
    "apis": {
        "shop": {
            "spec": "shop.yaml",
            "approvals": {"wait": "60s", "expire": "1h"},  # long: only an answer or the deadline ends it
            "tools": {"refundOrder": {"requires_approval": True, "bindings": {"body.currency": "EUR"}}},
        },
        "other": {"spec": "other.yaml"},
    },
    "approvals": {"wait": 0},
}


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Store]:
    async with open_store(f"sqlite:///{tmp_path / 'state.db'}") as opened:
        yield opened


@pytest.fixture
def gate(store: Store) -> ApprovalGate:
    return ApprovalGate(store, config_from_data(CONFIG, source="specbridge.yaml"))


class Upstream:
    def __init__(self, result: CallResult) -> None:
        self.result = result
        self.sent = 0

    async def send(self) -> CallResult:
        self.sent += 1
        return self.result


def test_per_api_settings_come_from_the_config(gate: ApprovalGate) -> None:
    assert (gate.desk.for_api("shop").settings.wait, gate.desk.for_api("shop").settings.expire) == (
        60.0,
        3600.0,
    )
    assert gate.desk.for_api("other").settings.wait == 0.0
    assert gate.desk.for_api("unknown").settings.wait == 0.0  # the top level's


async def test_which_tools_need_approval_and_which_values_are_bound() -> None:
    config = config_from_data(CONFIG, source="specbridge.yaml")
    document = parse_document(
        json.dumps(
            {
                "openapi": "3.1.0",
                "info": {"title": "t", "version": "1"},
                "paths": {
                    "/orders/{orderId}/refund": {
                        "post": {
                            "operationId": "refundOrder",
                            "parameters": [
                                {
                                    "name": "orderId",
                                    "in": "path",
                                    "required": True,
                                    "schema": {"type": "string"},
                                }
                            ],
                            "responses": {"200": {"description": "ok"}},
                        }
                    },
                    "/orders": {
                        "get": {"operationId": "listOrders", "responses": {"200": {"description": "ok"}}}
                    },
                },
            }
        )
    )
    toolset = convert(document)
    tools = {tool.name: tool for tool in toolset.tools}
    caller = Caller(config.apis["shop"], toolset)  # the gateway asks the call's plan
    refund, listing = caller.plan(tools["refundOrder"], None), caller.plan(tools["listOrders"], None)
    assert refund.requires_approval and not listing.requires_approval
    assert dict(caller.plan(tools["refundOrder"], {"header.X-Tenant": "t-1"}).binding_values) == {
        "body.currency": "EUR",
        "header.X-Tenant": "t-1",
    }
    await caller.aclose()


async def test_no_answer_within_the_wait_is_an_approval_pending_result_with_the_id(
    gate: ApprovalGate,
) -> None:
    upstream = Upstream(CallResult(text="refunded"))
    result = await gate.call("other", "refundOrder", "bot", ARGS, {}, upstream.send)
    assert (result.is_error, result.code, upstream.sent) == (True, ErrorCode.APPROVAL_PENDING, 0)
    (pending,) = await gate.desk.list(Status.PENDING)
    assert pending.id in result.text


async def test_an_answer_at_the_desk_wakes_the_waiting_call_which_sends_once(
    gate: ApprovalGate, store: Store
) -> None:
    image = ImageContent(b"\x89PNG-bytes", "image/png")
    upstream = Upstream(CallResult(text="refunded", status=200, structured={"ok": True}, image=image))

    waiting = reads_pending(store)

    async def approve_when_asked() -> None:
        await waiting.wait()  # the call read its approval as pending: it waits for the answer now
        (pending,) = await gate.desk.list(Status.PENDING)
        await gate.desk.approve(pending.id, "alice")

    with anyio.fail_after(10):
        result, _ = await asyncio.gather(
            gate.call("shop", "refundOrder", "bot", ARGS, {"body.currency": "EUR"}, upstream.send, budget=60),
            approve_when_asked(),
        )
    assert result == upstream.result
    assert upstream.sent == 1
    (done,) = await gate.desk.list(Status.DONE)
    assert done.result["text"] == "refunded"


async def test_the_wait_ends_early_enough_for_the_send_to_fit_the_call_deadline(gate: ApprovalGate) -> None:
    """shop waits 60 s, but with 3 s of the deadline left and a 2.5 s upstream timeout it may not wait at all
    (the bound is half the wait: a loaded machine's store steps fit in it, a wait that was not cut does not)."""
    upstream = Upstream(CallResult(text="refunded"))
    with anyio.fail_after(30):
        result = await gate.call(
            "shop", "refundOrder", "bot", ARGS, {}, upstream.send, budget=3, send_timeout=2.5
        )
    assert result.code is ErrorCode.APPROVAL_PENDING


async def test_a_rejected_call_gets_the_reason_and_an_error_result_is_kept_as_such(
    gate: ApprovalGate,
) -> None:
    upstream = Upstream(
        CallResult(text="no such order", is_error=True, code=ErrorCode.UPSTREAM_STATUS, status=404)
    )
    first = await gate.call("other", "refundOrder", "bot", ARGS, {}, upstream.send)
    approval_id = (await gate.desk.list(Status.PENDING))[0].id
    await gate.desk.reject(approval_id, "alice", "wrong order")
    rejected = await gate.call("other", "refundOrder", "bot", ARGS, {}, upstream.send)
    assert first.code is ErrorCode.APPROVAL_PENDING
    assert (rejected.code, "wrong order" in rejected.text, upstream.sent) == (
        ErrorCode.APPROVAL_REJECTED,
        True,
        0,
    )
    await gate.call("other", "refundOrder", "bot", ARGS, {}, upstream.send)
    again_id = (await gate.desk.list(Status.PENDING))[0].id
    await gate.desk.approve(again_id, "alice")
    failed: Any = await gate.call("other", "refundOrder", "bot", ARGS, {}, upstream.send)
    assert failed == upstream.result
