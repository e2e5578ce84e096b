"""The connect pages (`grants/_routes.py`, `grants/_pages.py`) in Debian's Chromium (playwright), at
desktop and phone width, as a person meets them: the link's page (the API's title, the client's display
name, the scopes asked, a button that names no host), and a page for each outcome — connected (through
glewlwyd's real sign-in and consent pages), denied, expired, error — each in the admin page's look, each
saying "you can close this tab and return to …". Assertions are on text, computed style and element
boxes, never pixels. Skipped, saying why, without glewlwyd, Chromium or playwright."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from specbridge.access import key_sha256
from tests.support.accounts import serving, sign_in_and_grant
from tests.support.chromium import BOXES, DESKTOP, NEEDS_CHROMIUM, PHONE, browser
from tests.support.gateway import http_client
from tests.support.glewlwyd import Glewlwyd
from tests.support.oauth_api import API_SCOPE, PEOPLE, STORE_KEY, protect
from tests.support.upstream import Upstream

__all__ = ["browser"]

KEY = "sbk_connect-pages-in-a-browser"
CLIENTS = {"robot-1": {"key_sha256": key_sha256(KEY), "apis": ["shop"], "display_name": "Robot One"}}
LINK = re.compile(r"https?://\S+/oauth/connect/shop\?id=[A-Za-z0-9_-]+")
NOTE_BLUE = "rgb(232, 244, 253)"  # the admin page's `.note` box: its style sheet applies

pytestmark = NEEDS_CHROMIUM


async def new_link(base: str) -> str:
    async with http_client(f"{base}/shop/mcp", key=KEY) as agent:
        refused = await agent.call_tool("listNotes", {})
    found = LINK.search(" ".join(getattr(block, "text", "") for block in refused.content))
    assert found is not None
    return found.group()


async def fits(page: Any, viewport: dict[str, int]) -> None:
    boxes = await page.evaluate(BOXES)
    assert boxes["overflowing"] == [], page.url
    assert boxes["width"] <= viewport["width"], page.url


async def outcome(page: Any, viewport: dict[str, int]) -> tuple[str, str]:
    """The page's heading and its last line (where to go next), once it fits the screen in the page's
    own style."""
    await fits(page, viewport)
    back = page.locator("p.back")
    assert await back.evaluate("p => getComputedStyle(p).backgroundColor") == NOTE_BLUE
    return await page.locator("h1").inner_text(), await back.inner_text()


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
async def test_each_connect_page_says_what_happened_and_where_to_go_at_desktop_and_phone_width(
    tmp_path: Path,
    upstream: Upstream,
    glewlwyd: Glewlwyd,
    browser: Any,
    monkeypatch: pytest.MonkeyPatch,
    viewport: dict[str, int],
) -> None:
    monkeypatch.setenv("SPECBRIDGE_TEST_STORE_KEY", STORE_KEY)
    protect(upstream, glewlwyd, "/notes")
    async with serving(tmp_path, upstream, glewlwyd, CLIENTS) as (base, _):
        page = await (await browser.new_context(viewport=viewport)).new_page()
        page.set_default_timeout(30_000)

        link, other = await new_link(base), await new_link(base)  # two links, before any is used
        await page.goto(link)  # the link's page
        await fits(page, viewport)
        assert await page.locator("h1").inner_text() == "Connect your Gateway fixture account"
        text = await page.locator("main").inner_text()
        assert "Robot One asks to use Gateway fixture as you" in text and "robot-1" not in text
        assert await page.locator("ul.scopes li").all_inner_texts() == [API_SCOPE]
        button = page.locator("button.go")
        assert await button.inner_text() == "Continue to sign in"
        assert await button.evaluate("b => getComputedStyle(b).backgroundColor") == "rgb(21, 101, 192)"
        assert (await button.bounding_box())["height"] >= 40  # a finger-sized target

        await page.goto(other)  # denied: the person declines at the API's page
        async with page.expect_request(lambda request: "state=" in request.url) as sent:
            await page.locator("button.go").click()  # to the API's consent page, the state in its URL
        state = parse_qs(urlsplit((await sent.value).url).query)["state"][0]
        await page.goto(f"{base}/oauth/callback/shop?error=access_denied&state={state}")
        heading, back = await outcome(page, viewport)
        assert heading == "Not connected: access was declined"
        assert "(access_denied)" in await page.locator("main").inner_text()
        assert await page.locator("p.code").inner_text() == "[connect-declined]"

        await page.goto(link)  # connected, through glewlwyd's own pages
        await page.locator("button.go").click()
        await sign_in_and_grant(page, "bob", PEOPLE["bob"])
        heading, back = await outcome(page, viewport)
        assert heading == "Your Gateway fixture account is connected"
        assert back == "You can close this tab and return to Robot One."
        assert "connected to the client Robot One" in await page.locator("main").inner_text()

        await page.goto(link)  # expired: the link was used
        heading, back = await outcome(page, viewport)
        assert heading == "This link has expired"
        assert back == "You can close this tab and return to the app you came from."
        assert await page.locator("p.code").inner_text() == "[connect-invalid]"

        await page.goto(f"{base}/oauth/connect/shop?id=too-short")  # an error
        heading, back = await outcome(page, viewport)
        assert heading == "Not connected: something went wrong"
        assert "this link is incomplete" in await page.locator("p.error").inner_text()
        assert back == "You can close this tab and return to the app you came from."
