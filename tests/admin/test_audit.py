"""Admin actions in the audit log (`_guard.log_admin`): every use of an admin key on the JSON API (and a key
refused), sign-ins and sign-outs on the page, and each answer, whichever way it came: the same lines the
gateway's log has, never a key or an approval's values."""

from __future__ import annotations

from pathlib import Path

from tests.admin._page import approval_page, csrf_of, sign_in
from tests.support.admin import ADMIN_KEY, ARGS, CLIENT_KEY, admin_client, auth
from tests.support.audit import audit_lines as lines


async def test_admin_api_key_use_refusals_and_answers_are_audited(tmp_path: Path, audit_file: Path) -> None:
    async with admin_client(f"sqlite:///{tmp_path / 'state.db'}") as admin:
        approval = await admin.pending()
        await admin.client.get("/admin/approvals", headers=auth())
        await admin.client.post(f"/admin/approvals/{approval.id}/approve", headers=auth())
        await admin.client.get("/admin/approvals", headers=auth(CLIENT_KEY))
    found = lines(audit_file)
    assert [line["event"] for line in found] == [
        "admin key used",
        "admin key used",
        "approval answered",
        "admin key refused",
    ]
    assert found[1] | {"time": "", "instance": ""} == {
        "time": "",
        "instance": "",
        "event": "admin key used",
        "admin": "alice",
        "method": "POST",
        "path": f"/admin/approvals/{approval.id}/approve",
        "via": "admin-api",
    }
    answered = found[2]
    assert (answered["answer"], answered["by"], answered["approval"]) == ("approve", "alice", approval.id)
    assert (answered["api"], answered["tool"], answered["client"]) == ("shop", "refundOrder", "bot")
    assert found[3]["code"] == "admin-key-invalid" and "admin" not in found[3]
    written = audit_file.read_text(encoding="utf-8")
    for value in (ADMIN_KEY, CLIENT_KEY, str(ARGS["orderId"])):
        assert value not in written


async def test_page_sign_ins_answers_and_sign_outs_are_audited(tmp_path: Path, audit_file: Path) -> None:
    async with admin_client(f"sqlite:///{tmp_path / 'state.db'}") as admin:
        approval = await admin.pending()
        await sign_in(admin.client, CLIENT_KEY)
        await sign_in(admin.client)
        token = csrf_of((await approval_page(admin.client, approval.id)).text)
        reason = "a reason typed by the admin"
        await admin.client.post(f"/admin/page/{approval.id}/reject", data={"csrf": token, "reason": reason})
        await admin.client.post("/admin/sign-out", data={"csrf": token})
    found = lines(audit_file)
    assert [(line["event"], line.get("admin") or line.get("by")) for line in found] == [
        ("admin sign-in refused", None),
        ("admin signed in", "alice"),
        ("approval answered", "alice"),
        ("admin signed out", "alice"),
    ]
    assert {line["via"] for line in found} == {"admin-page"}
    assert found[2]["answer"] == "reject" and found[2]["status"] == "rejected"
    assert reason not in audit_file.read_text(encoding="utf-8")
