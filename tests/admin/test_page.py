"""The approvals web page without a browser (in process, SQLite): sign-in, session cookie flags, CSRF on
every POST, redirects when signed out, HTML escaping of hostile values, answering from the page."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from starlette.applications import Starlette

from specbridge.admin._page import AdminPage
from specbridge.service import ApprovalGate
from specbridge.store import Status, open_store
from tests.admin._harness import ADMIN_KEY, CLIENT_KEY, Admin, admin_client, admin_config

HOSTILE = '<script>alert("x")</script>'


@pytest.fixture
async def admin(tmp_path: Path) -> AsyncIterator[Admin]:
    async with admin_client(f"sqlite:///{tmp_path / 'state.db'}") as opened:
        yield opened


def csrf_of(page: str) -> str:
    tokens = set(re.findall(r'name="csrf" value="([^"]+)"', page))
    assert len(tokens) == 1
    return tokens.pop()


async def sign_in(client: httpx.AsyncClient, key: str = ADMIN_KEY) -> httpx.Response:
    form = await client.get("/admin/sign-in")
    return await client.post("/admin/sign-in", data={"key": key, "csrf": csrf_of(form.text)})


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
    assert page.headers["content-security-policy"].startswith("default-src 'none'")
    assert page.headers["x-frame-options"] == "DENY"


async def test_over_https_the_session_cookie_is_secure(tmp_path: Path) -> None:
    async with admin_client(f"sqlite:///{tmp_path / 'state.db'}") as admin:
        admin.client.base_url = httpx.URL("https://127.0.0.1")
        response = await sign_in(admin.client)
        cookie = next(c for c in response.headers.get_list("set-cookie") if c.startswith("specbridge_admin="))
        assert "secure" in cookie.lower()


async def test_a_client_key_does_not_sign_in(admin: Admin) -> None:
    response = await sign_in(admin.client, CLIENT_KEY)
    assert response.status_code == 401
    assert "admin-key-invalid" in response.text
    assert "specbridge_admin" not in admin.client.cookies
    assert (await admin.client.get("/admin/")).status_code == 303


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


async def test_hostile_arguments_and_bound_values_are_shown_escaped(admin: Admin) -> None:
    await admin.pending(arguments={"note": HOSTILE, HOSTILE: 1}, bound={"header.X-Tenant": '"><img src=x>'})
    await sign_in(admin.client)
    page = (await admin.client.get("/admin/")).text
    assert "<script>" not in page
    assert "<img" not in page
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page.replace("\\&quot;", "&quot;")
    assert "&lt;img src=x&gt;" in page


async def test_the_page_lists_a_pending_approval_and_approves_it_once(admin: Admin) -> None:
    approval = await admin.pending()
    await sign_in(admin.client)
    page = (await admin.client.get("/admin/")).text
    assert "Pending approvals (1)" in page
    assert "shop / refundOrder" in page and "o-1" in page and "EUR" in page
    token = csrf_of(page)
    done = await admin.client.post(f"/admin/page/{approval.id}/approve", data={"csrf": token})
    assert done.status_code == 303
    after = await admin.client.get(done.headers["location"])
    assert f"Approval <code>{approval.id}</code> is now approved" in after.text
    stored = await admin.gate.desk.get(approval.id)
    assert (stored.status, stored.answered_by) == (Status.APPROVED, "alice")
    again = await admin.client.post(f"/admin/page/{approval.id}/reject", data={"csrf": token, "reason": "no"})
    assert again.status_code == 409
    assert "approval-answered" in again.text


async def test_rejecting_from_the_page_needs_a_reason_and_keeps_it(admin: Admin) -> None:
    approval = await admin.pending()
    await sign_in(admin.client)
    token = csrf_of((await admin.client.get("/admin/")).text)
    path = f"/admin/page/{approval.id}/reject"
    empty = await admin.client.post(path, data={"csrf": token, "reason": " "})
    assert empty.status_code == 400
    assert "approval-reason-missing" in empty.text
    await admin.client.post(path, data={"csrf": token, "reason": "ask the customer first"})
    stored = await admin.gate.desk.get(approval.id)
    assert (stored.status, stored.reason) == (Status.REJECTED, "ask the customer first")
    assert "ask the customer first" in (await admin.client.get("/admin/")).text


async def test_signing_out_ends_the_session(admin: Admin) -> None:
    await sign_in(admin.client)
    token = csrf_of((await admin.client.get("/admin/")).text)
    response = await admin.client.post("/admin/sign-out", data={"csrf": token})
    assert (response.status_code, response.headers["location"]) == (303, "/admin/sign-in")
    assert (await admin.client.get("/admin/")).status_code == 303


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
