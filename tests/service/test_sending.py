"""`approvals.send` (service/_sending.py) on SQLite, PostgreSQL and Redis: an approval answered after its
agent stopped waiting is sent once by the gateway's sweep, its result kept for the same call again and
for `get_call_result`, `call.completed` queued for the client's webhook in the same step; two senders on
one store send once; a 409 is `failed` with its status; `on_retry` leaves the send to the agent's call;
an expired approval is reported once, then the call asks again."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from specbridge import ErrorCode
from specbridge.approvals import Approvals, approval_json
from specbridge.call import CallResult
from specbridge.config import ToolAccess
from specbridge.service import Deadline
from specbridge.store import Approval, Condition, Status
from tests.service._harness import ORDER, TOOLS, approved_while_nobody_waits, harness, served
from tests.support.audit import audit_lines, auditing_to
from tests.support.upstream import Upstream, json_response

HOOK = {
    "url": "https://hooks.example.com/in",
    "secret": "env:SB_TEST_UNUSED_HOOK_SECRET",  # read only when a delivery is signed
    "events": ["call.completed"],
}
CLIENTS = {"bot": {"key_sha256": "0" * 64, "apis": ["shop"], "webhook": HOOK}}


@pytest.fixture(autouse=True)
def upstream_routes(upstream: Upstream) -> None:
    upstream.route("/shops/s1/orders", json_response({"id": "o1"}, status=201))


async def test_an_approval_given_after_the_agent_stopped_waiting_is_sent_once_and_its_result_kept(
    tmp_path: Path, upstream: Upstream, store_url: str
) -> None:
    async with harness(
        tmp_path, upstream, store_url, tools=TOOLS, approvals={"wait": 0}, clients=CLIENTS
    ) as service:
        approved = await approved_while_nobody_waits(service, "bot")
        assert await service.service.sender.sweep(served(service)) == 1
        assert await service.service.sender.sweep(served(service)) == 0  # nothing approved is left
        kept = await service.ledger.current().desk.get(approved.id)
        opened = await service.ledger.open()
        (event,) = await opened.lease_due(time.time() + 1, 60)
        again = await service.result("createOrder", ORDER, client="bot")  # the same call, later
        by_id = await service.service.result(service.api, "bot", {"call_id": approved.id}, Deadline.after(10))
        after = await service.result("createOrder", ORDER, client="bot")  # within the repeat window
    assert len(upstream.requests) == 1
    assert (kept.status, kept.settled_at, kept.result["status"]) == (Status.DONE, None, 201)
    assert approval_json(kept)["upstream_status"] == 201
    assert by_id.structured == again.structured == after.structured == {"id": "o1"}
    assert "already sent" in after.text and approved.id in after.text
    assert (event.topic, event.receiver) == ("call.completed", "client:bot")
    assert event.payload["data"]["call_id"] == approved.id and event.payload["data"]["status"] == "done"
    assert json.loads(event.payload["data"]["result"]["text"]) == {"id": "o1"}


async def test_two_gateways_on_one_store_sweeping_at_once_send_the_approved_call_once(
    tmp_path: Path, upstream: Upstream, store_url: str
) -> None:
    async with (
        harness(tmp_path / "one", upstream, store_url, tools=TOOLS, approvals={"wait": 0}) as one,
        harness(tmp_path / "two", upstream, store_url, tools=TOOLS, approvals={"wait": 0}) as two,
    ):
        await approved_while_nobody_waits(one)
        await two.ledger.open()
        started = await asyncio.gather(
            *((one, two)[n % 2].service.sender.sweep(served((one, two)[n % 2])) for n in range(6))
        )
        result = await two.result("createOrder", ORDER)
    assert sum(started) >= 1
    assert len(upstream.requests) == 1
    assert result.structured == {"id": "o1"}


async def test_a_409_from_the_api_is_failed_with_its_status_and_the_agent_gets_the_error(
    tmp_path: Path, upstream: Upstream, store_url: str
) -> None:
    upstream.route("/shops/s1/orders", json_response({"error": "already ordered"}, status=409))
    async with harness(tmp_path, upstream, store_url, tools=TOOLS, approvals={"wait": 0}) as service:
        approved = await approved_while_nobody_waits(service)
        await service.service.sender.sweep(served(service))
        kept = await service.ledger.current().desk.get(approved.id)
        told = await service.result("createOrder", ORDER)
    assert (kept.status, approval_json(kept)["upstream_status"]) == (Status.FAILED, 409)
    assert (told.is_error, told.code, told.status) == (True, ErrorCode.UPSTREAM_STATUS, 409)
    assert len(upstream.requests) == 1


async def test_on_retry_leaves_the_approved_call_to_the_agents_next_call(
    tmp_path: Path, upstream: Upstream, store_url: str
) -> None:
    approvals = {"wait": 0, "send": "on_retry"}
    async with harness(tmp_path, upstream, store_url, tools=TOOLS, approvals=approvals) as service:
        approved = await approved_while_nobody_waits(service)
        assert await service.service.sender.sweep(served(service)) == 0
        assert upstream.requests == []
        still = await service.ledger.current().desk.get(approved.id)
        sent = await service.result("createOrder", ORDER)
    assert still.status is Status.APPROVED
    assert sent.structured == {"id": "o1"} and len(upstream.requests) == 1


async def test_an_approval_the_agents_call_waits_on_is_left_to_that_call(
    tmp_path: Path, upstream: Upstream
) -> None:
    async with harness(tmp_path, upstream, tools=TOOLS, approvals={"wait": 0}) as service:
        approved = await approved_while_nobody_waits(service)
        service.ledger.waiting[approved.id] += 1  # a call of this process waits on it now
        assert await service.service.sender.sweep(served(service)) == 0
        del service.ledger.waiting[approved.id]
        assert await service.service.sender.sweep(served(service)) == 1
    assert len(upstream.requests) == 1


async def test_a_call_that_changed_since_its_approval_is_not_sent_by_the_sweep(
    tmp_path: Path, upstream: Upstream
) -> None:
    async with harness(tmp_path, upstream, tools=TOOLS, approvals={"wait": 0}) as service:
        approved = await approved_while_nobody_waits(service)
        opened = await service.ledger.open()
        changed = Approval(**{**approval_fields(approved), "id": "changed1", "fingerprint": "other"})
        await opened.attach_or_create(changed, time.time())
        await opened.update_approval(
            "changed1", Condition(frozenset({Status.PENDING})), {"status": Status.APPROVED}
        )
        assert await service.service.sender.sweep(served(service)) == 2
        kept = await service.ledger.current().desk.get("changed1")
    assert kept.status is Status.APPROVED  # left for the agent's next call, which asks again
    assert len(upstream.requests) == 1


def approval_fields(approval: Approval) -> dict[str, Any]:
    return {name: getattr(approval, name) for name in Approval.__slots__}


async def test_an_expired_approval_is_reported_to_the_same_call_once_then_it_asks_again(
    tmp_path: Path, upstream: Upstream, store_url: str
) -> None:
    async with harness(tmp_path, upstream, store_url, tools=TOOLS, approvals={"wait": 0}) as service:
        await service.result("createOrder", ORDER)
        (pending,) = await service.ledger.current().desk.list(Status.PENDING)
        opened = await service.ledger.open()
        later = Approvals(opened, clock=lambda: time.time() + 10**6)
        assert (await later.get(pending.id)).status is Status.EXPIRED  # nobody answered in time
        told = await service.result("createOrder", ORDER)
        again = await service.result("createOrder", ORDER)
    assert told.code is ErrorCode.APPROVAL_EXPIRED and pending.id in told.text
    assert again.code is ErrorCode.APPROVAL_PENDING and pending.id not in again.text
    assert upstream.requests == []


async def test_get_call_result_knows_only_the_callers_own_approvals(
    tmp_path: Path, upstream: Upstream
) -> None:
    clients = {**CLIENTS, "other": {"key_sha256": "1" * 64, "apis": ["shop"]}}
    async with harness(tmp_path, upstream, tools=TOOLS, approvals={"wait": 0}, clients=clients) as service:
        approved = await approved_while_nobody_waits(service, "bot")
        foreign = await service.service.result(
            service.api, "other", {"call_id": approved.id}, Deadline.after(1)
        )
        pending: CallResult = await service.service.result(
            service.api, "bot", {"call_id": approved.id}, Deadline.after(1)
        )
    assert foreign.code is ErrorCode.CALL_NOT_FOUND
    assert pending.code is ErrorCode.APPROVAL_PENDING and upstream.requests == []


async def test_the_background_send_writes_its_own_audit_line(tmp_path: Path, upstream: Upstream) -> None:
    with auditing_to(tmp_path / "audit.jsonl") as path:
        async with harness(
            tmp_path, upstream, tools=TOOLS, approvals={"wait": 0}, clients=CLIENTS
        ) as service:
            approved = await approved_while_nobody_waits(service, "bot")
            await service.service.sender.sweep(served(service))
    found = audit_lines(path)
    calls = [line for line in found if line["event"] == "tool call"]
    assert [(line["outcome"], line.get("background")) for line in calls] == [
        ("approval-pending", None),
        ("ok", True),
    ]
    assert calls[1]["approval"] == approved.id and calls[1]["status"] == 201
    assert calls[1]["client"] == "bot" and calls[1]["tool"] == "createOrder"


async def test_the_credential_is_had_when_the_approved_call_is_sent_not_when_it_was_asked(
    tmp_path: Path, upstream: Upstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SHOP_SECRET", "token-at-approval-time")
    auth = {"type": "bearer", "secret": "env:SHOP_SECRET"}
    async with harness(tmp_path, upstream, tools=TOOLS, approvals={"wait": 0}, auth=auth) as service:
        await approved_while_nobody_waits(service)
        monkeypatch.setenv("SHOP_SECRET", "token-now")  # rotated (or renewed) while the call waited
        await service.service.sender.sweep(served(service))
    (request,) = upstream.requests
    assert request.headers["authorization"] == "Bearer token-now"


async def test_a_call_whose_secret_cannot_be_read_now_is_not_sent_and_stays_approved(
    tmp_path: Path, upstream: Upstream, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("SHOP_SECRET", "token")
    auth = {"type": "bearer", "secret": "env:SHOP_SECRET"}
    async with harness(tmp_path, upstream, tools=TOOLS, approvals={"wait": 0}, auth=auth) as service:
        approved = await approved_while_nobody_waits(service)
        monkeypatch.delenv("SHOP_SECRET")
        with caplog.at_level(logging.WARNING, logger="specbridge.gateway"):
            await service.service.sender.sweep(served(service))
            await service.service.sender.sweep(served(service))  # looked at again only a minute later
        kept = await service.ledger.current().desk.get(approved.id)
    assert kept.status is Status.APPROVED and upstream.requests == []
    (line,) = [record for record in caplog.records if record.getMessage() == "approved call not sent yet"]
    assert line.fields["code"] == "secret-unavailable"  # type: ignore[attr-defined]


@pytest.mark.parametrize("lost", ["client", "api", "tool"])
async def test_an_approved_call_whose_client_lost_its_access_is_not_sent_and_ends_refused(
    tmp_path: Path, upstream: Upstream, lost: str
) -> None:
    async with harness(tmp_path, upstream, tools=TOOLS, approvals={"wait": 0}, clients=CLIENTS) as service:
        approved = await approved_while_nobody_waits(service, "bot")
        bot = service.config.clients["bot"]
        changed = {
            "client": {},
            "api": {"bot": replace(bot, apis=())},
            "tool": {"bot": replace(bot, tools={"shop": ToolAccess(deny=("createOrder",))})},
        }[lost]
        service.config = replace(service.config, clients=changed)  # a reload while it waited
        await service.service.sender.sweep(served(service))
        kept = await service.ledger.current().desk.get(approved.id)
        by_id = await service.service.result(service.api, "bot", {"call_id": approved.id}, Deadline.after(5))
    assert upstream.requests == []
    assert kept.status is Status.FAILED and kept.result["code"] == "approval-access-revoked"
    assert by_id.code is ErrorCode.APPROVAL_ACCESS_REVOKED and "Nothing was sent" in by_id.text
