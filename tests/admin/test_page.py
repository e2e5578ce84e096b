"""The approvals web page without a browser (in process, SQLite): sign-in, session cookie flags, CSRF on
every POST, redirects when signed out, sessions that end with their admin, HTML escaping of hostile
values and marking of invisible ones, the list fair per client, each approval's own page saying what
the call does, the banner after an answer, and a log line for each answer and sign-in."""

from __future__ import annotations

import html
import logging
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette

from specbridge.access import key_sha256
from specbridge.admin import ToolFacts, admin_app
from specbridge.admin._html import CSP
from specbridge.admin._page import AdminPage
from specbridge.config import AdminConfig
from specbridge.service import ApprovalGate
from specbridge.store import Condition, Status, open_store
from tests.admin._page import approval_page, csrf_of, sign_in
from tests.support.admin import (
    ADMIN_KEY,
    CLIENT_KEY,
    OTHER_ADMIN_KEY,
    Admin,
    admin_client,
    admin_config,
    auth,
)

HOSTILE = '<script>alert("x")</script>'
ARGS_SENT = {"orderId": "o-7", "amount": 40}
REFUND = ToolFacts(
    "POST", "/orders/{orderId}/refund", "https://api.shop.example/v2", "Refund an order", False, True
)


def lookup(api: str, tool: str) -> ToolFacts | None:
    return REFUND if (api, tool) == ("shop", "refundOrder") else None


@pytest.fixture
async def admin(tmp_path: Path) -> AsyncIterator[Admin]:
    async with admin_client(f"sqlite:///{tmp_path / 'state.db'}", tools=lookup) as opened:
        yield opened


def log_lines(caplog: pytest.LogCaptureFixture, event: str) -> list[dict[str, Any]]:
    return [r.fields for r in caplog.records if r.getMessage() == event]  # type: ignore[attr-defined]


async def test_signed_out_the_page_redirects_to_the_sign_in_form(admin: Admin) -> None:
    response = await admin.client.get("/admin/")
    assert (response.status_code, response.headers["location"]) == (303, "/admin/sign-in")
    form = await admin.client.get("/admin/sign-in")
    assert form.status_code == 200
    assert "<title>specbridge approvals</title>" in form.text
    assert 'type="password" name="key"' in form.text


async def test_signing_in_sets_an_httponly_samesite_strict_session_cookie(admin: Admin) -> None:
    response = await sign_in(admin.client)
    assert (response.status_code, response.headers["location"]) == (303, "/admin/")
    cookie = next(c for c in response.headers.get_list("set-cookie") if c.startswith("specbridge_admin="))
    flags = {part.strip().lower() for part in cookie.split(";")[1:]}
    assert {"httponly", "samesite=strict", "path=/admin"} <= flags
    assert "secure" not in flags  # plain http on loopback; https below
    page = await admin.client.get("/admin/")
    assert page.status_code == 200
    assert "Pending approvals (0)" in page.text
    assert page.headers["x-frame-options"] == "DENY"


async def test_every_page_answer_carries_a_csp_that_allows_only_its_own_style_sheet(admin: Admin) -> None:
    approval = await admin.pending()
    answers = [await admin.client.get("/admin/"), await admin.client.get("/admin/sign-in")]
    answers.append(await admin.client.get("/admin/sign-in", headers={"Host": "evil.example"}))
    await sign_in(admin.client)
    answers += [await admin.client.get("/admin/"), await approval_page(admin.client, approval.id)]
    answers.append(await approval_page(admin.client, "no-such-id"))
    answers.append(await admin.client.post(f"/admin/page/{approval.id}/approve", data={"csrf": "wrong"}))
    assert [a.status_code for a in answers] == [303, 200, 403, 200, 200, 404, 403]
    for answer in answers:
        policy = answer.headers["content-security-policy"]
        assert policy == CSP
        assert "unsafe-inline" not in policy and "script-src" not in policy
        assert policy.startswith("default-src 'none'; style-src 'sha256-")
        assert answer.headers["x-content-type-options"] == "nosniff"
    assert len(re.findall(r"<style>", answers[3].text)) == 1
    assert ' style="' not in answers[3].text + answers[4].text  # no inline style attributes to allow


async def test_over_https_the_session_cookie_is_secure(tmp_path: Path) -> None:
    async with admin_client(f"sqlite:///{tmp_path / 'state.db'}") as admin:
        admin.client.base_url = httpx.URL("https://127.0.0.1")
        response = await sign_in(admin.client)
        cookie = next(c for c in response.headers.get_list("set-cookie") if c.startswith("specbridge_admin="))
        assert "secure" in cookie.lower()


async def test_a_client_key_does_not_sign_in_and_the_refusal_is_logged(
    admin: Admin, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="specbridge.gateway"):
        response = await sign_in(admin.client, CLIENT_KEY)
    assert response.status_code == 401
    assert "admin-key-invalid" in response.text
    assert "specbridge_admin" not in admin.client.cookies
    assert (await admin.client.get("/admin/")).status_code == 303
    assert log_lines(caplog, "admin sign-in refused") == [
        {"code": "admin-key-invalid", "via": "admin-page", "status": 401}
    ]
    assert CLIENT_KEY not in caplog.text


async def test_the_sign_in_page_answers_only_allowed_hosts(admin: Admin) -> None:
    rebound = await admin.client.get("/admin/sign-in", headers={"Host": "attacker.example"})
    assert rebound.status_code == 403
    assert "host-refused" in rebound.text
    assert "specbridge_signin" not in rebound.headers.get("set-cookie", "")
    assert (await admin.client.get("/admin/sign-in", headers={"Host": "localhost:8765"})).status_code == 200


async def test_signing_in_without_the_form_s_csrf_token_is_403(admin: Admin) -> None:
    await admin.client.get("/admin/sign-in")
    response = await admin.client.post("/admin/sign-in", data={"key": ADMIN_KEY, "csrf": "guess"})
    assert response.status_code == 403
    assert "csrf-invalid" in response.text
    fresh = httpx.AsyncClient(transport=admin.client._transport, base_url="http://127.0.0.1")
    async with fresh:
        token = csrf_of((await admin.client.get("/admin/sign-in")).text)
        # the token without its cookie (a cross-site form cannot set our cookie) is refused too
        response = await fresh.post("/admin/sign-in", data={"key": ADMIN_KEY, "csrf": token})
        assert response.status_code == 403


async def test_an_answer_without_or_with_a_wrong_csrf_token_is_403_and_changes_nothing(admin: Admin) -> None:
    approval = await admin.pending()
    await sign_in(admin.client)
    path = f"/admin/page/{approval.id}/approve"
    missing = await admin.client.post(path, data={})
    wrong = await admin.client.post(path, data={"csrf": "x" * 43})
    assert (missing.status_code, wrong.status_code) == (403, 403)
    assert "csrf-invalid" in missing.text
    assert (await admin.gate.desk.get(approval.id)).status is Status.PENDING


async def test_a_form_posted_from_another_site_is_refused(admin: Admin) -> None:
    approval = await admin.pending()
    await sign_in(admin.client)
    token = csrf_of((await admin.client.get("/admin/")).text)
    response = await admin.client.post(
        f"/admin/page/{approval.id}/approve", data={"csrf": token}, headers={"Origin": "https://evil.example"}
    )
    assert response.status_code == 403
    assert "origin-refused" in response.text
    assert (await admin.gate.desk.get(approval.id)).status is Status.PENDING


async def test_signed_out_an_answer_redirects_to_sign_in_and_changes_nothing(admin: Admin) -> None:
    approval = await admin.pending()
    response = await admin.client.post(f"/admin/page/{approval.id}/approve", data={"csrf": "x"})
    assert (response.status_code, response.headers["location"]) == (303, "/admin/sign-in")
    assert (await admin.gate.desk.get(approval.id)).status is Status.PENDING


async def test_signed_out_an_approval_s_page_signs_in_and_comes_back_to_it(admin: Admin) -> None:
    approval = await admin.pending()
    first = await approval_page(admin.client, approval.id)
    assert first.headers["location"] == f"/admin/sign-in?next=%2Fadmin%2Fapprovals%2F{approval.id}"
    response = await sign_in(admin.client, next_path=f"/admin/approvals/{approval.id}")
    assert response.headers["location"] == f"/admin/approvals/{approval.id}"
    elsewhere = await sign_in(admin.client, next_path="https://evil.example/")
    assert elsewhere.headers["location"] == "/admin/"  # never a redirect off the page


async def test_hostile_arguments_and_bound_values_are_shown_escaped(admin: Admin) -> None:
    approval = await admin.pending(
        arguments={"note": HOSTILE, HOSTILE: 1}, bound={"header.X-Tenant": '"><img src=x>'}
    )
    await sign_in(admin.client)
    for page in (
        (await admin.client.get("/admin/")).text,
        (await approval_page(admin.client, approval.id)).text,
    ):
        assert "<script>" not in page
        assert "<img" not in page
        assert "&lt;script&gt;alert(\\&quot;x\\&quot;)&lt;/script&gt;" in page
    assert "&lt;img src=x&gt;" in (await approval_page(admin.client, approval.id)).text


async def test_invisible_and_bidi_characters_are_shown_as_marked_escapes(admin: Admin) -> None:
    """`amount` reads 1000 with the override shown raw (the browser draws `0001` reversed); shown as
    escapes, marked and named, no value can pass for another."""
    arguments = {"amount": "\u202e0001\u202c", "orderId": "o\u200b-1"}
    approval = await admin.pending(arguments=arguments, bound={})
    await sign_in(admin.client)
    page = (await approval_page(admin.client, approval.id)).text
    for raw in ("\u202e", "\u202c", "\u200b"):
        assert raw not in page
    assert '<mark class="hidden" title="U+202E RIGHT-TO-LEFT OVERRIDE">\\u202e</mark>0001' in page
    assert '<mark class="hidden" title="U+200B ZERO WIDTH SPACE">\\u200b</mark>' in page
    assert "These values contain invisible or bidirectional characters" in page
    listing = (await admin.client.get("/admin/")).text
    assert "\u202e" not in listing
    assert "invisible characters" in listing


async def test_the_list_is_fair_to_every_client_and_its_heading_counts_them_all(admin: Admin) -> None:
    """110 approvals from one client, then one from another: the other's is on the page, each client
    says how many it has, and the heading counts all 111."""
    crowd = [await admin.pending(arguments={"orderId": f"o-{n}"}) for n in range(110)]
    lone = await admin.pending(arguments={"orderId": "mine"}, client="shopfront")
    await sign_in(admin.client)
    page = (await admin.client.get("/admin/")).text
    assert "Pending approvals (111)" in page
    assert f'id="approval-{lone.id}"' in page
    assert "Client bot · 110 pending" in page and "Client shopfront · 1 pending" in page
    assert f'id="approval-{crowd[0].id}"' in page  # the oldest of the crowd first
    assert f'id="approval-{crowd[10].id}"' not in page
    assert 'href="/admin/?client=bot"' in page
    shown: list[str] = []
    where: str | None = "/admin/?client=bot"
    while where is not None:
        listing = (await admin.client.get(html.unescape(where))).text
        assert "Pending approvals (111)" in listing and "Client bot · 110 pending" in listing
        shown += re.findall(r'id="approval-([0-9a-f]+)"', listing)
        following = re.search(r'<a href="([^"]+)">Next page</a>', listing)
        where = following.group(1) if following else None
    assert shown == [approval.id for approval in crowd]  # each once, oldest first, 50 a page


async def test_a_client_making_1010_approvals_hides_no_other_clients_older_one(admin: Admin) -> None:
    """The review: one client's 1,010 approvals (about 3 s of calls) hid another's older pending one
    from the page (it read the 1,000 newest, its heading said 1000+), the API and the command line."""
    lone = await admin.pending(arguments={"orderId": "mine"}, client="shopfront")
    for number in range(1010):
        await admin.pending(arguments={"orderId": f"o-{number}"})
    await sign_in(admin.client)
    page = (await admin.client.get("/admin/")).text
    assert "Pending approvals (1011)" in page
    assert f'id="approval-{lone.id}"' in page and "Client shopfront · 1 pending" in page
    assert page.index("Client shopfront") < page.index("Client bot")  # the longest wait first
    headers = {"Authorization": f"Bearer {ADMIN_KEY}"}
    clients = (await admin.client.get("/admin/approvals/clients", headers=headers)).json()
    assert clients["total"] == 1011
    assert [(c["client"], c["count"]) for c in clients["clients"]] == [("shopfront", 1), ("bot", 1010)]
    listed: list[str] = []
    after: str | None = None
    while True:
        params = {"status": "pending", "limit": "1000"} | ({"after": after} if after else {})
        answer = (await admin.client.get("/admin/approvals", params=params, headers=headers)).json()
        listed += [approval["id"] for approval in answer["approvals"]]
        after = answer["next"]
        if after is None:
            break
    assert len(listed) == len(set(listed)) == 1011 and listed[-1] == lone.id


async def test_the_list_says_when_it_was_loaded_and_reloads_itself_without_script(admin: Admin) -> None:
    await sign_in(admin.client)
    page = (await admin.client.get("/admin/", params={"answered": "x"})).text
    assert '<meta http-equiv="refresh" content="30; url=/admin/">' in page
    assert re.search(r"Loaded <time datetime=\"[0-9T:-]+\+00:00\">[0-9-]+ [0-9:]+ UTC</time>", page)
    assert "<script" not in page
    one_client = (await admin.client.get("/admin/", params={"client": "bot", "after": "1.5~ab"})).text
    assert 'content="30; url=/admin/?client=bot&amp;after=1.5~ab"' in one_client


async def test_an_approval_s_page_says_what_the_call_will_do(admin: Admin) -> None:
    approval = await admin.pending()
    await sign_in(admin.client)
    page = (await approval_page(admin.client, approval.id)).text
    assert "<code>POST /orders/{orderId}/refund</code>" in page
    assert "https://api.shop.example/v2" in page
    assert "Refund an order" in page
    assert '<span class="badge destructive">destructive</span>' in page
    assert (
        "&quot;orderId&quot;: &quot;o-1&quot;" in page
        and "&quot;body.currency&quot;: &quot;EUR&quot;" in page
    )
    assert "http-equiv" not in page  # no reload here: a reason being typed is never lost
    assert re.search(r'<fieldset class="reject"><legend>Reject</legend>.*<textarea.*</fieldset>', page)


async def test_an_empty_bound_block_is_hidden_and_an_unknown_tool_says_so(admin: Admin) -> None:
    approval = await admin.gate.desk.for_api("shop").request("shop", "oldTool", "bot", {"a": 1}, {})
    await sign_in(admin.client)
    page = (await approval_page(admin.client, approval.id)).text
    assert "Bound values" not in page
    assert "the tool is not in the documents served now" in page


async def test_approving_from_its_page_once_with_a_banner_naming_the_tool_and_arguments(
    admin: Admin, caplog: pytest.LogCaptureFixture
) -> None:
    approval = await admin.pending()
    await sign_in(admin.client)
    page = (await approval_page(admin.client, approval.id)).text
    token = csrf_of(page)
    with caplog.at_level(logging.INFO, logger="specbridge.gateway"):
        done = await admin.client.post(f"/admin/page/{approval.id}/approve", data={"csrf": token})
    assert (done.status_code, done.headers["location"]) == (303, f"/admin/?answered={approval.id}")
    after = (await admin.client.get(done.headers["location"])).text
    banner = re.search(r'<p class="note" role="status">(.*?)</p>', after, re.S)
    assert banner is not None
    assert "<strong>Approved</strong> shop / refundOrder" in banner.group(1)
    assert "{&quot;amount&quot;: 25, &quot;orderId&quot;: &quot;o-1&quot;}" in banner.group(1)
    assert approval.id in banner.group(1) and "by alice" in banner.group(1)
    assert re.search(
        r"<td data-label=\"answered\"><time datetime=\"[^\"]+\">[0-9-]+ [0-9:]+ UTC</time></td>", after
    )
    stored = await admin.gate.desk.get(approval.id)
    assert (stored.status, stored.answered_by) == (Status.APPROVED, "alice")
    again = await admin.client.post(f"/admin/page/{approval.id}/reject", data={"csrf": token, "reason": "no"})
    assert again.status_code == 409
    assert "approval-answered" in again.text
    (line,) = log_lines(caplog, "approval answered")
    assert line == {
        "answer": "approve",
        "by": "alice",
        "via": "admin-page",
        "approval": approval.id,
        "api": "shop",
        "tool": "refundOrder",
        "client": "bot",
        "status": "approved",
    }
    assert "o-1" not in caplog.text  # never an argument value


async def test_rejecting_needs_a_reason_and_a_refusal_keeps_what_was_typed(admin: Admin) -> None:
    approval = await admin.pending()
    await sign_in(admin.client)
    token = csrf_of((await admin.client.get("/admin/")).text)
    path = f"/admin/page/{approval.id}/reject"
    empty = await admin.client.post(path, data={"csrf": token, "reason": " "})
    assert empty.status_code == 400
    assert "approval-reason-missing" in empty.text
    await admin.gate.desk.approve(approval.id, "bob")  # someone else answers first
    late = await admin.client.post(path, data={"csrf": token, "reason": "ask the customer first"})
    assert late.status_code == 409
    assert "approval-answered" in late.text and "by bob" in late.text
    other = await admin.pending(arguments={"orderId": "o-2"})
    await admin.client.post(f"/admin/page/{other.id}/reject", data={"csrf": token, "reason": "too much"})
    stored = await admin.gate.desk.get(other.id)
    assert (stored.status, stored.reason) == (Status.REJECTED, "too much")
    assert "too much" in (await admin.client.get("/admin/")).text


async def test_signing_in_and_out_are_logged_and_signing_out_ends_the_session(
    admin: Admin, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="specbridge.gateway"):
        await sign_in(admin.client)
        token = csrf_of((await admin.client.get("/admin/")).text)
        response = await admin.client.post("/admin/sign-out", data={"csrf": token})
    assert (response.status_code, response.headers["location"]) == (303, "/admin/sign-in")
    assert (await admin.client.get("/admin/")).status_code == 303
    assert log_lines(caplog, "admin signed in") == [{"admin": "alice", "via": "admin-page"}]
    assert log_lines(caplog, "admin signed out") == [{"admin": "alice", "via": "admin-page"}]
    assert ADMIN_KEY not in caplog.text


@pytest.mark.parametrize("change", ["removed", "rekeyed"])
async def test_a_removed_or_rekeyed_admin_s_session_ends_at_its_next_request(
    tmp_path: Path, change: str
) -> None:
    config = admin_config()
    admins: dict[str, AdminConfig] = dict(config.admins)
    async with open_store(f"sqlite:///{tmp_path / 'state.db'}") as store:
        gate = ApprovalGate(store, config)
        approval = await gate.desk.for_api("shop").request("shop", "refundOrder", "bot", {"a": 1}, {})
        transport = httpx.ASGITransport(app=admin_app(gate.desk, admins))
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            await sign_in(client)
            token = csrf_of((await client.get("/admin/")).text)
            if change == "removed":
                del admins["alice"]
            else:
                admins["alice"] = AdminConfig("alice", key_sha256(OTHER_ADMIN_KEY + "-new"))
            assert (await client.get("/admin/")).headers["location"] == "/admin/sign-in"
            answer = await client.post(f"/admin/page/{approval.id}/approve", data={"csrf": token})
            assert answer.headers["location"] == "/admin/sign-in"
            assert (await gate.desk.get(approval.id)).status is Status.PENDING


async def test_a_session_expires(tmp_path: Path) -> None:
    config = admin_config()
    now = [1000.0]
    async with open_store(f"sqlite:///{tmp_path / 'state.db'}") as store:
        page = AdminPage(
            ApprovalGate(store, config).desk,
            config.admins,
            ["127.0.0.1"],
            session_ttl=60,
            clock=lambda: now[0],
        )
        transport = httpx.ASGITransport(app=Starlette(routes=page.routes()))
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            await sign_in(client)
            assert (await client.get("/admin/")).status_code == 200
            now[0] += 61
            assert (await client.get("/admin/")).status_code == 303


async def test_a_form_from_an_opaque_origin_is_refused_and_the_page_keeps_its_origin_on_forms(
    admin: Admin,
) -> None:
    """Sandboxed frames and `data:` pages post with `Origin: null`; our own page must not (Chromium does
    that under `Referrer-Policy: no-referrer`), so the page sends `same-origin`."""
    approval = await admin.pending()
    await sign_in(admin.client)
    page = await admin.client.get("/admin/")
    assert page.headers["referrer-policy"] == "same-origin"
    response = await admin.client.post(
        f"/admin/page/{approval.id}/approve", data={"csrf": csrf_of(page.text)}, headers={"Origin": "null"}
    )
    assert response.status_code == 403
    assert "origin-refused" in response.text


async def test_the_banner_says_the_gateway_sends_an_approved_call_and_a_sent_one_shows_how_it_ended(
    admin: Admin,
) -> None:
    approval = await admin.pending()
    await sign_in(admin.client)
    token = csrf_of((await approval_page(admin.client, approval.id)).text)
    done = await admin.client.post(f"/admin/page/{approval.id}/approve", data={"csrf": token})
    after = (await admin.client.get(done.headers["location"])).text
    assert "The gateway is sending it now; its page shows the outcome." in after
    # the gateway's sender claims it and the API answers 409
    approvals = admin.gate.desk.for_api("shop")
    claimed = await approvals.claim(await approvals.get(approval.id))
    assert claimed is not None
    result = {"text": "conflict", "is_error": True, "code": "upstream-status", "status": 409}
    await approvals.finish(claimed, {**result, "structured": None, "image": None}, settle=False)
    page = (await approval_page(admin.client, approval.id)).text
    listed = (await admin.client.get("/admin/")).text
    assert "<strong>failed (HTTP 409)</strong>" in page and "API answered</dt><dd>HTTP 409" in page
    assert '<td data-label="status">failed (HTTP 409)</td>' in listed


async def test_a_repeat_of_a_sent_call_is_marked_in_the_list_and_on_its_page_with_the_one_before(
    admin: Admin,
) -> None:
    approvals = admin.gate.desk.for_api("shop")
    first = await admin.pending(ARGS_SENT)
    await approvals.approve(first.id, "alice")
    executing = await approvals.claim(await approvals.get(first.id))
    assert executing is not None
    await approvals.finish(executing, {"text": "{}", "is_error": False, "status": 200})
    sent = await approvals.get(first.id)
    await admin.store.update_approval(
        first.id, Condition(statuses=frozenset({Status.DONE})), {"finished_at": sent.created_at - 7200}
    )
    repeat = await approvals.request(
        "shop", "refundOrder", "bot", ARGS_SENT, {}, fingerprint="f-repeat", repeat_of=first.id
    )
    await sign_in(admin.client)
    listed = await admin.client.get("/admin/")
    page = await approval_page(admin.client, repeat.id)
    shown = (await admin.client.get(f"/admin/approvals/{repeat.id}", headers=auth())).json()
    plain = (await admin.client.get(f"/admin/approvals/{first.id}", headers=auth())).json()
    assert "repeat: same call as" in listed.text and first.id[:12] in listed.text
    assert f"same call as {first.id}, done (HTTP 200) 2 h ago" in page.text
    assert shown["repeat_of"] == first.id
    assert shown["repeat"] == f"same call as {first.id}, done (HTTP 200) 2 h ago"
    assert (plain["repeat_of"], plain["repeat"]) == (None, None)
