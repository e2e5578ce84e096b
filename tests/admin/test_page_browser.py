"""The approvals page in a real headless Chromium (Debian's, driven by playwright) against the admin app
served by uvicorn on a loopback socket: sign in, see the pending call and its arguments, reject it with
a reason; the record keeps the reason and the agent's next identical call gets it. Plus a screenshot
check that the page renders. Skipped, saying why, without /usr/bin/chromium or playwright."""

from __future__ import annotations

import asyncio
import importlib.util
import os
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest
import uvicorn

from specbridge import ErrorCode
from specbridge.admin import admin_app
from specbridge.call import CallResult
from specbridge.gateway import base_url, bind
from specbridge.service import ApprovalGate
from specbridge.store import Status, open_store
from tests.admin._harness import ADMIN_KEY, admin_config

CHROMIUM = os.environ.get("SPECBRIDGE_TEST_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]  # fmt: skip
HOSTILE_NOTE = '<b onmouseover="alert(1)">refund it all</b>'

pytestmark = [
    pytest.mark.skipif(
        not Path(CHROMIUM).is_file(), reason=f"no Chromium at {CHROMIUM} (apt-get install chromium)"
    ),
    pytest.mark.skipif(
        importlib.util.find_spec("playwright") is None, reason="the playwright package is not installed"
    ),
]


@dataclass
class Served:
    url: str
    gate: ApprovalGate


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[Served]:
    config = admin_config()
    async with open_store(f"sqlite:///{tmp_path / 'state.db'}") as store:
        gate = ApprovalGate(store, config)
        sock = bind("127.0.0.1", 0)
        server = uvicorn.Server(
            uvicorn.Config(admin_app(gate.desk, config.admins), log_config=None, lifespan="off")
        )
        task = asyncio.create_task(server.serve(sockets=[sock]))
        try:  # the socket listens already: the browser's first request waits in its backlog, bounded
            yield Served(base_url(sock), gate)  # by the page's own timeout, until uvicorn accepts it
        finally:
            server.should_exit = True
            with anyio.fail_after(20):
                await task
            sock.close()


@pytest.fixture
async def browser() -> AsyncIterator[Any]:
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS, timeout=60_000)
        try:
            yield launched
        finally:
            await launched.close()


async def test_sign_in_see_the_pending_call_and_reject_it_with_a_reason(served: Served, browser: Any) -> None:
    arguments = {"orderId": "o-1", "amount": 25, "note": HOSTILE_NOTE}
    approvals = served.gate.desk.for_api("shop")
    approval = await approvals.request("shop", "refundOrder", "bot", arguments, {"body.currency": "EUR"})
    page = await browser.new_page()
    page.set_default_timeout(30_000)
    await page.goto(served.url + "/admin/")
    assert page.url.endswith("/admin/sign-in")
    await page.fill('input[name="key"]', ADMIN_KEY)
    await page.click('button:has-text("Sign in")')
    await page.wait_for_url(served.url + "/admin/")

    card = page.locator(f"#approval-{approval.id}")
    assert "shop / refundOrder" in await card.locator("h2").inner_text()
    shown_arguments, shown_bound = await card.locator("pre").all_inner_texts()
    assert HOSTILE_NOTE.replace('"', '\\"') in shown_arguments  # shown as text, not turned into markup
    assert '"orderId": "o-1"' in shown_arguments
    assert '"body.currency": "EUR"' in shown_bound
    assert await page.locator("b[onmouseover]").count() == 0

    await card.locator('textarea[name="reason"]').fill("refunds over 20 need the customer's written request")
    await card.locator('button:has-text("Reject")').click()
    await page.wait_for_url(f"{served.url}/admin/?answered={approval.id}")
    assert f"Approval {approval.id} is now rejected" in await page.locator("p.note").inner_text()
    assert "written request" in await page.locator("table").inner_text()
    assert "Pending approvals (0)" in await page.locator("h1").inner_text()

    stored = await served.gate.desk.get(approval.id)
    assert (stored.status, stored.answered_by) == (Status.REJECTED, "alice")
    assert stored.reason == "refunds over 20 need the customer's written request"

    async def never_sent() -> CallResult:
        raise AssertionError("a rejected call must not be sent")

    again = await served.gate.call(
        "shop", "refundOrder", "bot", arguments, {"body.currency": "EUR"}, never_sent
    )
    assert (again.is_error, again.code) == (True, ErrorCode.APPROVAL_REJECTED)
    assert "written request" in again.text


async def test_the_page_renders_a_screenshot_with_its_title_and_heading(served: Served, browser: Any) -> None:
    await served.gate.desk.for_api("shop").request("shop", "refundOrder", "bot", {"orderId": "o-2"}, {})
    page = await browser.new_page(viewport={"width": 1000, "height": 700})
    page.set_default_timeout(30_000)
    await page.goto(served.url + "/admin/sign-in")
    await page.fill('input[name="key"]', ADMIN_KEY)
    await page.click('button:has-text("Sign in")')
    await page.wait_for_url(served.url + "/admin/")
    assert await page.title() == "specbridge approvals"
    assert await page.locator("h1").inner_text() == "Pending approvals (1)"
    png = await page.screenshot(full_page=True)
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    assert len(png) > 5_000  # a blank 1000x700 page compresses to far less
    cookies = {cookie["name"]: cookie for cookie in await page.context.cookies()}
    session = cookies["specbridge_admin"]
    assert (session["httpOnly"], session["sameSite"]) == (True, "Strict")
