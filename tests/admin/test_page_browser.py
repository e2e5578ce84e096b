"""The approvals page in a real headless Chromium (Debian's, driven by playwright): against the admin app
served by uvicorn on a loopback socket, and against the whole gateway (its documents tell the page what a
call does; its reload ends the sessions of an admin it removes or rekeys). Assertions are on the page's
text and element boxes, never pixels. Skipped, saying why, without /usr/bin/chromium or playwright."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from specbridge import ErrorCode
from specbridge.access import key_sha256, new_key
from specbridge.admin import admin_app
from specbridge.config import load_config
from specbridge.service import ApprovalGate, outcome
from specbridge.store import Status, open_store
from tests.support.admin import ADMIN_KEY, admin_config, served
from tests.support.chromium import BOXES, DESKTOP, NEEDS_CHROMIUM, PHONE, browser
from tests.support.gateway import running_gateway, write_config
from tests.support.upstream import Upstream

__all__ = ["browser"]

HOSTILE_NOTE = '<b onmouseover="alert(1)">refund it all</b>'
LONG = "refund-" + "x" * 300  # one long unbroken value, the kind that pushes a layout off a phone

pytestmark = NEEDS_CHROMIUM


@dataclass
class Served:
    url: str
    gate: ApprovalGate


@pytest.fixture
async def app(tmp_path: Path) -> AsyncIterator[Served]:
    config = admin_config()
    async with open_store(f"sqlite:///{tmp_path / 'state.db'}") as store:
        gate = ApprovalGate(store, config)
        async with served(admin_app(gate.desk, config.admins)) as url:
            yield Served(url, gate)


async def signed_in(browser: Any, url: str, key: str = ADMIN_KEY, **options: Any) -> Any:
    page = await (await browser.new_context(**options)).new_page()
    page.set_default_timeout(30_000)
    await page.goto(url + "/admin/")
    assert page.url.endswith("/admin/sign-in")
    await page.fill('input[name="key"]', key)
    await page.click('button:has-text("Sign in")')
    await page.wait_for_url(url + "/admin/")
    return page


async def test_sign_in_open_the_pending_call_and_reject_it_with_a_reason(app: Served, browser: Any) -> None:
    arguments = {"orderId": "o-1", "amount": 25, "note": HOSTILE_NOTE}
    approvals = app.gate.desk.for_api("shop")
    approval = await approvals.request("shop", "refundOrder", "bot", arguments, {"body.currency": "EUR"})
    page = await signed_in(browser, app.url)
    assert await page.locator("h1").inner_text() == "Pending approvals (1)"
    assert "Loaded" in await page.locator("p.loaded").inner_text()
    item = page.locator(f"#approval-{approval.id}")
    assert "shop / refundOrder" in await item.inner_text()
    await item.locator("a.tool").click()
    await page.wait_for_url(f"{app.url}/admin/approvals/{approval.id}")

    shown_arguments = await page.locator("pre.arguments").inner_text()
    assert HOSTILE_NOTE.replace('"', '\\"') in shown_arguments  # shown as text, not turned into markup
    assert '"orderId": "o-1"' in shown_arguments
    assert '"body.currency": "EUR"' in await page.locator("pre.bound").inner_text()
    assert await page.locator("b[onmouseover]").count() == 0

    reject = page.locator("fieldset.reject")
    await reject.locator("textarea").fill("refunds over 20 need the customer's written request")
    await reject.locator("button").click()
    await page.wait_for_url(f"{app.url}/admin/?answered={approval.id}")
    banner = await page.locator("p.note").inner_text()
    assert banner.startswith("Rejected shop / refundOrder with {")
    assert '"orderId": "o-1"' in banner and "written request" in banner
    recent = await page.locator("table.recent").inner_text()
    assert "written request" in recent and " UTC" in recent
    assert await page.locator("h1").inner_text() == "Pending approvals (0)"

    stored = await app.gate.desk.get(approval.id)
    assert (stored.status, stored.answered_by) == (Status.REJECTED, "alice")
    assert stored.reason == "refunds over 20 need the customer's written request"

    again = await outcome(app.gate.desk.for_api("shop"), stored)  # what the agent's same call gets now
    assert (again.is_error, again.code) == (True, ErrorCode.APPROVAL_REJECTED)
    assert "written request" in again.text


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
async def test_the_pages_fit_the_screen_with_styled_answers_and_the_reason_inside_reject(
    app: Served, browser: Any, viewport: dict[str, int]
) -> None:
    approvals = app.gate.desk.for_api("shop")
    approval = await approvals.request("shop", "refundOrder", "bot", {"orderId": LONG}, {"header.X-T": LONG})
    answered = await approvals.request("shop", "refundOrder", "bot", {"orderId": "o-9", "note": LONG}, {})
    await app.gate.desk.reject(answered.id, "alice", "no: " + LONG)
    page = await signed_in(browser, app.url, viewport=viewport)
    for path in ("/admin/", f"/admin/approvals/{approval.id}"):
        await page.goto(app.url + path)
        boxes = await page.evaluate(BOXES)
        assert boxes["overflowing"] == [], path
        assert boxes["width"] <= viewport["width"], path

    approve = page.locator("button.approve")
    reject = page.locator("button.reject")
    assert await approve.inner_text() == "Approve and send"
    # the page's own style sheet applies (the CSP allows it by hash): filled green and red buttons
    colours = [await b.evaluate("b => getComputedStyle(b).backgroundColor") for b in (approve, reject)]
    assert colours == ["rgb(46, 125, 50)", "rgb(198, 40, 40)"]
    fieldset = await page.locator("fieldset.reject").bounding_box()
    assert await page.locator("fieldset.reject legend").inner_text() == "Reject"
    for inside in (page.locator("textarea[name=reason]"), reject):
        box = await inside.bounding_box()
        assert fieldset["x"] <= box["x"] and box["x"] + box["width"] <= fieldset["x"] + fieldset["width"]
        assert fieldset["y"] <= box["y"] and box["y"] + box["height"] <= fieldset["y"] + fieldset["height"]
    approve_box = await approve.bounding_box()
    assert not (fieldset["x"] <= approve_box["x"] < fieldset["x"] + fieldset["width"]
                and fieldset["y"] <= approve_box["y"] < fieldset["y"] + fieldset["height"])  # fmt: skip
    for button in (approve_box, await reject.bounding_box()):
        assert button["height"] >= 30  # a finger-sized target


async def test_without_javascript_a_person_signs_in_and_approves_and_the_list_reloads_itself(
    app: Served, browser: Any
) -> None:
    approval = await app.gate.desk.for_api("shop").request(
        "shop", "refundOrder", "bot", {"orderId": "o-2"}, {}
    )
    page = await signed_in(browser, app.url, java_script_enabled=False)
    assert await page.locator('meta[http-equiv="refresh"]').get_attribute("content") == "30; url=/admin/"
    await page.goto(f"{app.url}/admin/approvals/{approval.id}")
    assert await page.locator('meta[http-equiv="refresh"]').count() == 0
    assert await page.locator("pre.bound").count() == 0  # no bound values: no empty block
    await page.locator("button.approve").click()
    await page.wait_for_url(f"{app.url}/admin/?answered={approval.id}")
    assert (await page.locator("p.note").inner_text()).startswith("Approved shop / refundOrder")
    assert (await app.gate.desk.get(approval.id)).status is Status.APPROVED
    cookies = {cookie["name"]: cookie for cookie in await page.context.cookies()}
    assert (cookies["specbridge_admin"]["httpOnly"], cookies["specbridge_admin"]["sameSite"]) == (
        True,
        "Strict",
    )


@pytest.mark.parametrize("change", ["removed", "rekeyed"])
async def test_a_gateway_reload_that_removes_or_rekeys_an_admin_ends_its_open_sessions(
    tmp_path: Path, upstream: Upstream, browser: Any, change: str
) -> None:
    """Through the whole gateway: the approval's page shows the operation from the served document; the
    admin is then removed or rekeyed by a reload, and the page already open can no longer answer."""
    key = new_key(admin=True)
    path = write_config(tmp_path, upstream, tools="tools:\n  createOrder: {requires_approval: true}\n")
    config_text = path.read_text(encoding="utf-8") + f"store: 'sqlite:///{tmp_path / 'state.db'}'\n"
    path.write_text(config_text + f"admins:\n  ops: {{key_sha256: {key_sha256(key)}}}\n", encoding="utf-8")
    async with running_gateway(path) as (url, gateway):
        order = {"shopId": "s1", "product": "p1", "quantity": 2}
        approval = await gateway.ledger.desk.for_api("shop").request("shop", "createOrder", "", order, {})
        page = await signed_in(browser, url, key)
        await page.goto(f"{url}/admin/approvals/{approval.id}")
        facts = await page.locator("dl.facts").inner_text()
        assert "POST /shops/{shopId}/orders" in facts
        assert upstream.url in facts and "Place an order" in facts

        admins = (
            "admins: {}\n"
            if change == "removed"
            else f"admins:\n  ops: {{key_sha256: {key_sha256(new_key(admin=True))}}}\n"
        )
        path.write_text(config_text + admins, encoding="utf-8")
        await gateway.reload(load_config(path))

        await page.locator("button.approve").click()  # the form loaded before the reload
        await page.wait_for_url(f"{url}/admin/sign-in")
        assert (await gateway.ledger.desk.get(approval.id)).status is Status.PENDING
        await page.goto(f"{url}/admin/")
        assert page.url == f"{url}/admin/sign-in"
