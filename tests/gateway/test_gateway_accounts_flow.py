"""Per-client accounts (`auth.type: oauth2_authorization_code`, `per_client: true`), end to end: two
clients of the gateway, two people, each connecting their own account of the API through the
gateway's connect page and glewlwyd's sign-in and consent pages in Debian's Chromium (playwright).

A client that declared URL-mode elicitation is asked by it (handshake era: the -32042 error carrying
the connect link; 2026-07-28: an `input_required` result, answered and retried by the SDK itself), one
that did not gets `account-not-connected` with the link in its text. Nothing is sent for a client with
no account, and each client's calls carry its own person's token, never the other's. Skipped, saying
why, without glewlwyd, Chromium or playwright."""

from __future__ import annotations

import contextlib
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError

from specbridge.access import key_sha256
from tests.support.accounts import serving as accounts_serving
from tests.support.accounts import sign_in_and_grant
from tests.support.chromium import NEEDS_CHROMIUM, browser
from tests.support.gateway import http_client, text
from tests.support.glewlwyd import Glewlwyd
from tests.support.oauth_api import (
    PEOPLE,
    STORE_KEY,
    protect,
)
from tests.support.upstream import Upstream

__all__ = ["browser"]

KEY_BOB, KEY_CAROL = "sbk_accounts-flow-bob-client", "sbk_accounts-flow-carol-client"
CLIENTS = {
    "bobs-agent": {"key_sha256": key_sha256(KEY_BOB), "apis": ["shop"]},
    "carols-agent": {"key_sha256": key_sha256(KEY_CAROL), "apis": ["shop"]},
}
LINK = re.compile(r"https?://\S+/oauth/connect/shop\?id=[A-Za-z0-9_-]+")

pytestmark = NEEDS_CHROMIUM


async def connect_in_browser(browser: Any, url: str, person: str) -> str:
    """`person` opens the connect link in a browser of their own, goes on to glewlwyd, signs in and
    grants access; the text of the page the gateway ends on."""
    context = await browser.new_context()
    try:
        page = await context.new_page()
        page.set_default_timeout(30_000)
        await page.goto(url)
        assert "Connect your Gateway fixture account" in await page.title()
        await page.click("button:has-text('Continue to sign in')")
        await sign_in_and_grant(page, person, PEOPLE[person])
        return str(await page.inner_text("body"))
    finally:
        await context.close()


@contextlib.asynccontextmanager
async def serving(tmp_path: Path, upstream: Upstream, glewlwyd: Glewlwyd) -> AsyncIterator[tuple[str, str]]:
    async with accounts_serving(tmp_path, upstream, glewlwyd, CLIENTS) as served:
        yield served


async def _accept(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
    return types.ElicitResult(action="accept")


async def test_each_client_connects_its_own_account_and_never_uses_anothers(
    tmp_path: Path, upstream: Upstream, glewlwyd: Glewlwyd, browser: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SPECBRIDGE_TEST_STORE_KEY", STORE_KEY)
    protect(upstream, glewlwyd, "/notes")
    async with serving(tmp_path, upstream, glewlwyd) as (base, client_id):
        # Bob's client declared elicitation (URL mode too): the handshake era's -32042 carries the link.
        async with http_client(f"{base}/shop/mcp", key=KEY_BOB, elicitation_callback=_accept) as bobs:
            with pytest.raises(MCPError) as asked:
                await bobs.call_tool("listNotes", {})
            assert asked.value.error.code == types.URL_ELICITATION_REQUIRED
            (elicitation,) = asked.value.error.data["elicitations"]
            assert elicitation["mode"] == "url" and elicitation["elicitationId"]
            landed = await connect_in_browser(browser, elicitation["url"], "bob")
            assert "connected to the client bobs-agent" in landed
            bobs_result = await bobs.call_tool("listNotes", {})

        # Carol's client did not: a result whose text carries the link; her call sent nothing.
        async with http_client(f"{base}/shop/mcp", key=KEY_CAROL) as carols:
            refused = await carols.call_tool("listNotes", {})
            sent_before = len(upstream.requests)
            assert refused.is_error and text(refused).startswith("[account-not-connected]")
            link = LINK.search(text(refused))
            assert link is not None
            landed = await connect_in_browser(browser, link.group(), "carol")
            assert "connected to the client carols-agent" in landed
            carols_result = await carols.call_tool("listNotes", {})
            bobs_again = None
        async with http_client(f"{base}/shop/mcp", key=KEY_BOB) as bobs:
            bobs_again = await bobs.call_tool("listNotes", {})

    assert sent_before == 1  # only Bob's call after he connected
    bob, carol = glewlwyd.subject("bob"), glewlwyd.subject("carol")
    assert bob and carol and bob != carol
    assert not bobs_result.is_error and bobs_result.structured_content is not None
    assert bobs_result.structured_content["sub"] == bob
    assert not carols_result.is_error and carols_result.structured_content is not None
    assert carols_result.structured_content["sub"] == carol
    assert bobs_again is not None and bobs_again.structured_content is not None
    assert bobs_again.structured_content["sub"] == bob
    assert {r.structured_content["client_id"] for r in (bobs_result, carols_result)} == {client_id}
    assert [r.path for r in upstream.requests] == ["/notes", "/notes", "/notes"]


async def test_a_2026_client_answers_the_url_elicitation_and_its_retried_call_goes_through(
    tmp_path: Path, upstream: Upstream, glewlwyd: Glewlwyd, browser: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SPECBRIDGE_TEST_STORE_KEY", STORE_KEY)
    protect(upstream, glewlwyd, "/notes")
    asked: list[types.ElicitRequestParams] = []

    async def connect(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params)
        assert isinstance(params, types.ElicitRequestURLParams)
        await connect_in_browser(browser, params.url, "bob")
        return types.ElicitResult(action="accept")

    async with (
        serving(tmp_path, upstream, glewlwyd) as (base, _),
        http_client(
            f"{base}/shop/mcp", mode="2026-07-28", key=KEY_BOB, elicitation_callback=connect
        ) as client,
    ):
        result = await client.call_tool("listNotes", {})
    assert len(asked) == 1 and LINK.fullmatch(asked[0].url)  # type: ignore[union-attr]
    assert not result.is_error, text(result)
    assert result.structured_content is not None and result.structured_content["sub"] == glewlwyd.subject(
        "bob"
    )
