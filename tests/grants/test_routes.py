"""The connect pages (`grants/_routes.py`) as the gateway serves them (in process): a link's page, its
form, the callback; every refusal a page with its code, and none of them can be framed or cached."""

from __future__ import annotations

import contextlib
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx2

from specbridge.access import key_sha256
from tests.support.gateway import IN_PROCESS, http_client, in_process_gateway
from tests.support.glewlwyd import Glewlwyd
from tests.support.oauth_api import (
    API_SCOPE,
    PEOPLE,
    authorize_url,
    new_client,
    oauth_config,
    protect,
    token_url,
)
from tests.support.upstream import Upstream

KEY = "sbk_connect-pages-client-key"
CALLBACK = f"{IN_PROCESS}/oauth/callback/shop"
FIELD = re.compile(r'name="(id|browser)" value="([^"]+)"')


@contextlib.asynccontextmanager
async def pages(
    tmp_path: Path, upstream: Upstream, glewlwyd: Glewlwyd
) -> AsyncIterator[tuple[httpx2.AsyncClient, str]]:
    """The gateway in process, an HTTP client for its pages, and a fresh connect link of `robot-1`."""
    protect(upstream, glewlwyd, "/notes")
    client_id, _ = new_client(glewlwyd, grants=["code"], redirect_uris=[CALLBACK], public=True)
    auth = {"type": "oauth2_authorization_code", "authorize_url": authorize_url(glewlwyd),
            "token_url": token_url(glewlwyd), "client_id": client_id, "scopes": [API_SCOPE],
            "per_client": True, "redirect_uri": CALLBACK}  # fmt: skip
    clients = {"robot-1": {"key_sha256": key_sha256(KEY), "apis": ["shop"], "display_name": "Robot One"}}
    config = oauth_config(tmp_path, upstream, glewlwyd, auth=auth, clients=clients)
    async with in_process_gateway(config) as (asgi, _):
        async with http_client(f"{IN_PROCESS}/mcp", key=KEY, transport=asgi) as agent:
            refused = await agent.call_tool("listNotes", {})
        link = re.search(r"http://\S+", refused.content[0].text)  # type: ignore[union-attr]
        assert link is not None
        async with httpx2.AsyncClient(transport=asgi, base_url=IN_PROCESS) as browser:
            yield browser, link.group()


def fields(page: str) -> dict[str, str]:
    return dict(FIELD.findall(page))


def assert_guarded(response: Any) -> None:
    assert response.headers["x-frame-options"] == "DENY"
    assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
    assert response.headers["cache-control"] == "no-store"


async def test_the_links_page_names_the_client_and_binds_the_browser(
    tmp_path: Path, upstream: Upstream, glewlwyd: Glewlwyd
) -> None:
    async with pages(tmp_path, upstream, glewlwyd) as (browser, link):
        page = await browser.get(link)
        assert page.status_code == 200
        for said in ("Connect your Gateway fixture account", "<strong>Robot One</strong> asks to use",
                     f"<code>{API_SCOPE}</code>", "Continue to sign in</button>", "127.0.0.1:"):  # fmt: skip
            assert said in page.text, said
        assert (
            "robot-1" not in page.text and "Continue to 127" not in page.text
        )  # ids and hosts, not to people
        assert_guarded(page)
        cookie = page.headers["set-cookie"]
        assert "HttpOnly" in cookie and "SameSite=lax" in cookie and "Path=/oauth/" in cookie
        assert fields(page.text)["browser"] == browser.cookies["specbridge_connect"]


async def test_going_on_takes_the_link_once_and_sends_the_browser_to_the_consent_page(
    tmp_path: Path, upstream: Upstream, glewlwyd: Glewlwyd
) -> None:
    async with pages(tmp_path, upstream, glewlwyd) as (browser, link):
        form = fields((await browser.get(link)).text)
        going = await browser.post(link, data=form, headers={"Origin": IN_PROCESS})
        assert going.status_code == 303 and going.headers["location"].startswith(
            authorize_url(glewlwyd) + "?"
        )
        spent = await browser.get(link)
        assert (
            spent.status_code == 400 and "[connect-invalid]" in spent.text and "used or expired" in spent.text
        )
        assert_guarded(spent)


async def test_a_form_from_another_page_or_browser_is_refused_and_the_link_kept(
    tmp_path: Path, upstream: Upstream, glewlwyd: Glewlwyd
) -> None:
    async with pages(tmp_path, upstream, glewlwyd) as (browser, link):
        form = fields((await browser.get(link)).text)
        elsewhere = await browser.post(link, data=form, headers={"Origin": "https://evil.example"})
        odd = await browser.post(link, data={**form, "browser": "caf\u00e9"}, headers={"Origin": IN_PROCESS})
        browser.cookies.clear()
        no_cookie = await browser.post(link, data=form, headers={"Origin": IN_PROCESS})
        for refused in (elsewhere, odd, no_cookie):
            assert refused.status_code == 403 and "[csrf-invalid]" in refused.text
        assert (await browser.get(link)).status_code == 200  # still usable by its own page


async def test_the_callback_stores_the_account_and_the_client_calls_with_it(
    tmp_path: Path, upstream: Upstream, glewlwyd: Glewlwyd
) -> None:
    async with pages(tmp_path, upstream, glewlwyd) as (browser, link):
        going = await browser.post(
            link, data=fields((await browser.get(link)).text), headers={"Origin": IN_PROCESS}
        )
        back = glewlwyd.consent(going.headers["location"], "carol", PEOPLE["carol"])
        assert back.startswith(CALLBACK + "?")
        landed = await browser.get(back)
        assert landed.status_code == 200
        assert "Your Gateway fixture account is connected" in landed.text
        assert "connected to the client <strong>Robot One</strong>" in landed.text
        assert "You can close this tab and return to <strong>Robot One</strong>." in landed.text
        assert_guarded(landed)
        again = await browser.get(back)  # the state was taken: a replayed callback connects nothing
        assert again.status_code == 400 and "[connect-invalid]" in again.text


async def test_a_declined_consent_says_so_and_spends_the_authorization(
    tmp_path: Path, upstream: Upstream, glewlwyd: Glewlwyd
) -> None:
    async with pages(tmp_path, upstream, glewlwyd) as (browser, link):
        going = await browser.post(
            link, data=fields((await browser.get(link)).text), headers={"Origin": IN_PROCESS}
        )
        state = re.search(r"state=([^&]+)", going.headers["location"]).group(1)  # type: ignore[union-attr]
        declined = await browser.get(f"/oauth/callback/shop?error=access_denied&state={state}")
        assert (
            declined.status_code == 400
            and "[connect-declined]" in declined.text
            and "access_denied" in declined.text
        )
        late = await browser.get(f"/oauth/callback/shop?code=x&state={state}")
        assert late.status_code == 400 and "[connect-invalid]" in late.text


async def test_a_callback_forged_without_the_browsers_cookie_spends_nothing(
    tmp_path: Path, upstream: Upstream, glewlwyd: Glewlwyd
) -> None:
    async with pages(tmp_path, upstream, glewlwyd) as (browser, link):
        going = await browser.post(
            link, data=fields((await browser.get(link)).text), headers={"Origin": IN_PROCESS}
        )
        back = glewlwyd.consent(going.headers["location"], "carol", PEOPLE["carol"])
        state = re.search(r"state=([^&]+)", back).group(1)  # type: ignore[union-attr]
        person = httpx2.Cookies(browser.cookies)
        browser.cookies.clear()  # another browser: the state (in a link an attacker saw), not the cookie
        declined = await browser.get(f"/oauth/callback/shop?error=access_denied&state={state}")
        with_code = await browser.get(f"/oauth/callback/shop?code=forged&state={state}")
        browser.cookies = person
        for forged in (declined, with_code):
            assert forged.status_code == 400 and "[connect-invalid]" in forged.text
        landed = await browser.get(back)  # the person's own callback still connects
        assert landed.status_code == 200 and "connected to the client" in landed.text


async def test_pages_of_an_api_that_connects_no_accounts_and_other_hosts_are_refused(
    tmp_path: Path, upstream: Upstream, glewlwyd: Glewlwyd
) -> None:
    async with pages(tmp_path, upstream, glewlwyd) as (browser, _):
        unknown = await browser.get("/oauth/connect/nothing?id=" + "a" * 32)
        assert unknown.status_code == 404 and "[connect-invalid]" in unknown.text
        other_host = await browser.get(
            "/oauth/callback/shop?code=x&state=" + "a" * 32, headers={"Host": "evil.example"}
        )
        assert other_host.status_code == 421 and "[host-refused]" in other_host.text
