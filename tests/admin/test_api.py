"""The admin HTTP API, in process over a real SQLite store: admin keys only, JSON answers, coded refusals;
and the approve race through two app instances on one PostgreSQL and one Redis store."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path

import anyio
import httpx
import pytest

from specbridge.admin import admin_app
from specbridge.service import ApprovalGate
from specbridge.store import Approval, Status, open_store
from tests.support.admin import (
    ADMIN_KEY,
    ARGS,
    BOUND,
    CLIENT_KEY,
    OTHER_ADMIN_KEY,
    admin_client,
    admin_config,
    auth,
)
from tests.support.notice import reads_pending
from tests.support.stores import POSTGRES, REDIS, refused


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'state.db'}"


def error_code(response: httpx.Response) -> str:
    body = response.json()
    assert set(body["error"]) == {"code", "message"}
    return str(body["error"]["code"])


async def test_an_admin_lists_pending_approvals_with_arguments_and_bound_values_apart(
    sqlite_url: str,
) -> None:
    async with admin_client(sqlite_url) as admin:
        approval = await admin.pending()
        response = await admin.client.get("/admin/approvals", params={"status": "pending"}, headers=auth())
        assert response.status_code == 200
        (listed,) = response.json()["approvals"]
        assert listed["id"] == approval.id
        assert (listed["arguments"], listed["bound"]) == (ARGS, BOUND)
        assert (listed["tool"], listed["client"], listed["status"]) == ("refundOrder", "bot", "pending")
        shown = await admin.client.get(f"/admin/approvals/{approval.id}", headers={"X-Api-Key": ADMIN_KEY})
        assert shown.json() == listed


async def test_approving_records_the_admin_and_a_second_answer_is_409_approval_answered(
    sqlite_url: str,
) -> None:
    async with admin_client(sqlite_url) as admin:
        approval = await admin.pending()
        approved = await admin.client.post(f"/admin/approvals/{approval.id}/approve", headers=auth())
        assert approved.status_code == 200
        assert (approved.json()["status"], approved.json()["answered_by"]) == ("approved", "alice")
        again = await admin.client.post(
            f"/admin/approvals/{approval.id}/reject", json={"reason": "no"}, headers=auth(OTHER_ADMIN_KEY)
        )
        assert again.status_code == 409
        assert error_code(again) == "approval-answered"


async def test_rejecting_keeps_the_reason_and_without_one_it_is_refused(sqlite_url: str) -> None:
    async with admin_client(sqlite_url) as admin:
        approval = await admin.pending()
        path = f"/admin/approvals/{approval.id}/reject"
        missing = await admin.client.post(path, json={"reason": "  "}, headers=auth())
        assert (missing.status_code, error_code(missing)) == (400, "approval-reason-missing")
        not_json = await admin.client.post(path, content=b"refund?", headers=auth())
        assert (not_json.status_code, error_code(not_json)) == (400, "request-invalid")
        rejected = await admin.client.post(path, json={"reason": "amount too high"}, headers=auth())
        assert rejected.status_code == 200
        assert (rejected.json()["status"], rejected.json()["reason"]) == ("rejected", "amount too high")
        stored = await admin.gate.desk.get(approval.id)
        assert (stored.status, stored.reason, stored.answered_by) == (
            Status.REJECTED,
            "amount too high",
            "alice",
        )


async def test_an_unknown_approval_is_404_and_a_bad_status_filter_400(sqlite_url: str) -> None:
    async with admin_client(sqlite_url) as admin:
        missing = await admin.client.get("/admin/approvals/nope", headers=auth())
        assert (missing.status_code, error_code(missing)) == (404, "approval-not-found")
        approve = await admin.client.post("/admin/approvals/nope/approve", headers=auth())
        assert (approve.status_code, error_code(approve)) == (404, "approval-not-found")
        bad = await admin.client.get("/admin/approvals", params={"status": "pendng"}, headers=auth())
        assert (bad.status_code, error_code(bad)) == (400, "request-invalid")
        assert "pending" in bad.json()["error"]["message"]


async def test_a_listing_pages_by_its_next_cursor_one_client_at_a_time_if_asked(sqlite_url: str) -> None:
    async with admin_client(sqlite_url) as admin:
        theirs = await admin.pending(arguments={"orderId": "theirs"}, client="shopfront")
        ours = [await admin.pending(arguments={"orderId": f"o-{n}"}) for n in range(5)]
        first = (await admin.client.get("/admin/approvals", params={"limit": "3"}, headers=auth())).json()
        assert [a["id"] for a in first["approvals"]] == [a.id for a in ours[::-1][:3]]
        params = {"limit": "3", "after": first["next"]}
        second = (await admin.client.get("/admin/approvals", params=params, headers=auth())).json()
        assert [a["id"] for a in second["approvals"]] == [ours[1].id, ours[0].id, theirs.id]
        assert second["next"] is not None  # a full page: there may be more (here, an empty one)
        params = {"client": "shopfront", "order": "oldest"}
        only = (await admin.client.get("/admin/approvals", params=params, headers=auth())).json()
        assert ([a["id"] for a in only["approvals"]], only["next"]) == ([theirs.id], None)
        counted = (await admin.client.get("/admin/approvals/clients", headers=auth())).json()
        assert counted["total"] == 6 and [c["count"] for c in counted["clients"]] == [1, 5]
        for bad in ({"after": "not-a-cursor"}, {"order": "random"}, {"client": "a\x00b"}):
            refused = await admin.client.get("/admin/approvals", params=bad, headers=auth())
            assert (refused.status_code, error_code(refused)) == (400, "request-invalid")


async def test_without_a_key_401_key_missing_and_a_client_key_is_not_an_admin_key(sqlite_url: str) -> None:
    async with admin_client(sqlite_url) as admin:
        approval = await admin.pending()
        none = await admin.client.get("/admin/approvals")
        assert (none.status_code, error_code(none)) == (401, "key-missing")
        assert none.headers["www-authenticate"].startswith("Bearer")
        client = await admin.client.post(f"/admin/approvals/{approval.id}/approve", headers=auth(CLIENT_KEY))
        assert (client.status_code, error_code(client)) == (401, "admin-key-invalid")
        wrong = await admin.client.get("/admin/approvals", headers={"X-Api-Key": "sbk_guess"})
        assert (wrong.status_code, error_code(wrong)) == (401, "admin-key-invalid")
        assert (await admin.gate.desk.get(approval.id)).status is Status.PENDING


async def test_a_host_not_allowed_is_403_host_refused_before_the_key_is_looked_at(sqlite_url: str) -> None:
    async with admin_client(sqlite_url) as admin:
        rebound = await admin.client.get("/admin/approvals", headers={**auth(), "Host": "attacker.example"})
        assert (rebound.status_code, error_code(rebound)) == (403, "host-refused")
        port = await admin.client.get("/admin/approvals", headers={**auth(), "Host": "localhost:8765"})
        assert port.status_code == 200
    async with admin_client(sqlite_url, allowed_hosts=["gateway.example.com"]) as admin:
        named = await admin.client.get("/admin/approvals", headers={**auth(), "Host": "gateway.example.com"})
        assert named.status_code == 200
        local = await admin.client.get("/admin/approvals", headers=auth())
        assert local.status_code == 403


async def test_an_unreachable_store_is_503_store_unavailable(sqlite_url: str) -> None:
    config = admin_config()
    store = open_store("postgresql://nobody@127.0.0.1:1/none")
    gate = ApprovalGate(store, config)
    transport = httpx.ASGITransport(app=admin_app(gate.desk, config.admins))
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
        response = await client.get("/admin/approvals", headers=auth())
    assert (response.status_code, error_code(response)) == (503, "store-unavailable")


@pytest.mark.parametrize("backend", ["postgresql", "redis"])
async def test_two_instances_approving_at_once_make_exactly_one_winner(
    backend: str, namespaces: Callable[[str], str]
) -> None:
    """Two gateway instances (two stores, two apps) on one server; the same approval approved through both
    at the same moment: one 200, one 409 approval-answered, and the call is sent once."""
    server = POSTGRES if backend == "postgresql" else REDIS
    if reason := refused(server):
        pytest.skip(reason)
    url = f"{server}?namespace={namespaces(backend)}"
    async with admin_client(url) as one, admin_client(url) as two:
        for _ in range(5):
            approval = await one.pending(arguments={**ARGS, "round": _})
            path = f"/admin/approvals/{approval.id}/approve"
            with anyio.fail_after(30):
                answers = await asyncio.gather(
                    one.client.post(path, headers=auth()),
                    two.client.post(path, headers=auth(OTHER_ADMIN_KEY)),
                )
            assert sorted(answer.status_code for answer in answers) == [200, 409]
            loser = next(answer for answer in answers if answer.status_code == 409)
            assert error_code(loser) == "approval-answered"
            approved = await one.gate.desk.get(approval.id)
            with anyio.fail_after(30):
                claims = await asyncio.gather(
                    one.gate.desk.for_api("shop").claim(approved),
                    two.gate.desk.for_api("shop").claim(approved),
                )
            assert len([claimed for claimed in claims if claimed is not None]) == 1  # sent once


async def test_an_approval_through_the_api_wakes_the_waiting_call_which_sends_once(sqlite_url: str) -> None:
    async with admin_client(sqlite_url) as admin:
        approvals = admin.gate.desk.for_api("shop")
        waiting = reads_pending(admin.store)

        async def call() -> Approval | None:
            """What a waiting call does (tests/service/test_approval.py): wait, claim, send, finish."""
            approval = await approvals.wait((await admin.pending()).id, 60)
            claimed = await approvals.claim(approval)
            if claimed is not None:
                sent.append("refund")
                return await approvals.finish(claimed, {"text": "refunded", "is_error": False})
            return None

        sent: list[str] = []

        async def approve_via_http() -> None:
            await waiting.wait()  # the call read its approval as pending: it waits for the answer now
            (found,) = (await admin.client.get("/admin/approvals", headers=auth())).json()["approvals"]
            answer = await admin.client.post(f"/admin/approvals/{found['id']}/approve", headers=auth())
            assert answer.status_code == 200

        with anyio.fail_after(20):
            result, _ = await asyncio.gather(call(), approve_via_http())
        assert result is not None and (result.result["text"], sent) == ("refunded", ["refund"])
        (done,) = (
            await admin.client.get("/admin/approvals", params={"status": "done"}, headers=auth())
        ).json()["approvals"]
        assert done["result"]["text"] == "refunded"


MALFORMED = ["%00", "abc%00def", "a" * 65, "x" * 5000, "ab!cd", "%E2%80%AEid", "id%20x", "a.b"]


async def test_a_malformed_id_is_404_on_every_backend_before_the_store_is_asked(store_url: str) -> None:
    """A NUL made PostgreSQL answer 503; an id that cannot be an approval's is not looked up at all."""
    async with admin_client(store_url) as admin:
        approval = await admin.pending()

        async def untouchable(*args: object, **kwargs: object) -> None:
            raise AssertionError("the store must not see a malformed id")

        admin.store.get_approval = untouchable  # type: ignore[method-assign]
        admin.store.update_approval = untouchable  # type: ignore[method-assign]
        for bad in MALFORMED:
            for method, path in [
                ("GET", f"/admin/approvals/{bad}"),
                ("POST", f"/admin/approvals/{bad}/approve"),
                ("POST", f"/admin/approvals/{bad}/reject"),
            ]:
                response = await admin.client.request(method, path, json={"reason": "no"}, headers=auth())
                assert (response.status_code, error_code(response)) == (404, "approval-not-found"), (
                    bad,
                    path,
                )
                assert bad.replace("%00", "\x00") not in response.text
    async with admin_client(store_url) as admin:  # a well-formed id still reaches the record
        shown = await admin.client.get(f"/admin/approvals/{approval.id}", headers=auth())
        assert shown.status_code == 200


async def test_each_answer_through_the_api_is_a_log_line_with_who_and_what_never_the_values(
    sqlite_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    async with admin_client(sqlite_url) as admin:
        first = await admin.pending()
        second = await admin.pending(arguments={"orderId": "o-2"})
        with caplog.at_level(logging.INFO, logger="specbridge.gateway"):
            await admin.client.post(f"/admin/approvals/{first.id}/approve", headers=auth())
            await admin.client.post(
                f"/admin/approvals/{second.id}/reject", json={"reason": "no"}, headers=auth(OTHER_ADMIN_KEY)
            )
    lines = [r.fields for r in caplog.records if r.getMessage() == "approval answered"]  # type: ignore[attr-defined]
    assert [(line["answer"], line["by"], line["approval"], line["status"]) for line in lines] == [
        ("approve", "alice", first.id, "approved"),
        ("reject", "bob", second.id, "rejected"),
    ]
    assert all(line["via"] == "admin-api" and line["tool"] == "refundOrder" for line in lines)
    assert "o-1" not in caplog.text and "o-2" not in caplog.text
    assert ADMIN_KEY not in caplog.text
    assert all(isinstance(r.created, float) for r in caplog.records)  # `ts` of the JSON line


async def test_a_reject_body_past_64_kb_is_refused_unread(sqlite_url: str) -> None:
    async with admin_client(sqlite_url) as admin:
        approval = await admin.pending()
        response = await admin.client.post(
            f"/admin/approvals/{approval.id}/reject", json={"reason": "x" * 70_000}, headers=auth()
        )
        assert (response.status_code, error_code(response)) == (413, "request-invalid")
        assert (await admin.gate.desk.get(approval.id)).status is Status.PENDING
