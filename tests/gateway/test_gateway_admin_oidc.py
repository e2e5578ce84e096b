"""An admin signs in to the approvals page with the company's OpenID Connect provider (glewlwyd) in
Debian's Chromium (playwright) and answers an approval: the page's "Sign in with your company account",
glewlwyd's sign-in, back to the gateway, the list, the approval's page, Approve; the approved call goes
out, answered by the admin the rule maps her to. Skipped, saying why, without glewlwyd, Chromium or
playwright."""

from __future__ import annotations

import contextlib
import importlib.util
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from specbridge.config import load_config
from specbridge.gateway import Gateway, bind
from specbridge.gateway._http import base_url
from specbridge.store import Status
from tests.support.chromium import browser
from tests.support.front import STORE_KEY, front_config, signin_client
from tests.support.gateway import serving_on
from tests.support.glewlwyd import EMAIL, PASSWORD, USER, Glewlwyd
from tests.support.upstream import Upstream, echo

__all__ = ["browser"]

CHROMIUM = os.environ.get("SPECBRIDGE_TEST_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]  # fmt: skip

pytestmark = [
    pytest.mark.skipif(
        not Path(CHROMIUM).is_file(), reason=f"no Chromium at {CHROMIUM} (apt-get install chromium)"
    ),
    pytest.mark.skipif(
        importlib.util.find_spec("playwright") is None, reason="the playwright package is not installed"
    ),
]


@contextlib.asynccontextmanager
async def serving(
    tmp_path: Path, upstream: Upstream, glewlwyd: Glewlwyd
) -> AsyncIterator[tuple[str, Gateway]]:
    sock = bind("127.0.0.1", 0)
    base = base_url(sock)
    config = front_config(
        tmp_path, upstream, glewlwyd, base, signin_client(glewlwyd, base),
        admins=[{"claim": "email", "value": EMAIL, "admin": "ops"}],
        tools={"createOrder": {"requires_approval": True}},
    )  # fmt: skip
    gateway = Gateway(load_config(config), config_path=str(config))
    async with serving_on(gateway, sock):
        yield base, gateway


async def test_an_admin_signs_in_with_the_provider_and_answers_an_approval(
    tmp_path: Path, upstream: Upstream, glewlwyd: Glewlwyd, browser: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SPECBRIDGE_TEST_STORE_KEY", STORE_KEY)
    upstream.route("/shops/alice-shop/orders", echo)
    async with serving(tmp_path, upstream, glewlwyd) as (base, gateway):
        desk = gateway.ledger.desk
        order = {"shopId": "alice-shop", "product": "mug", "quantity": 1}
        approval = await desk.for_api("shop").request("shop", "createOrder", "alice-agent", order, {})
        context = await browser.new_context()
        page = await context.new_page()
        page.set_default_timeout(30_000)
        try:
            await page.goto(f"{base}/admin/approvals/{approval.id}")
            await page.click("a:has-text('Sign in with your company account')")
            await page.fill("input[placeholder='Your username']", USER)
            await page.fill("input[placeholder='Your password']", PASSWORD)
            await page.click("button:has-text('OK')")
            await page.click("button:has-text('Continue')")
            await page.wait_for_url(f"{base}/admin/approvals/{approval.id}")  # back where she started
            signed_in = await page.inner_text("header")
            await page.click("button.approve")
            await page.wait_for_url(f"{base}/admin/?answered=*")
        finally:
            await context.close()
        answered = await desk.get(approval.id)
    assert "Signed in as ops" in " ".join(signed_in.split())
    assert answered.status in (Status.APPROVED, Status.DONE) and answered.answered_by == "ops"
