"""The gateway's own authorization server (`oauth_server:`) end to end: the official MCP SDK client's own
OAuth flow (`OAuthClientProvider`) against a gateway on a socket, a person signing in in Debian's
Chromium (playwright) at glewlwyd through the gateway's front and consenting on the gateway's page, then
listing and calling tools as the client the operator's rule maps her to (by her `email`):

401 → Protected Resource Metadata → the front's RFC 8414 metadata → the client by its metadata document
(CIMD, served over https on loopback) or by dynamic registration → /oauth/authorize → glewlwyd's sign-in
and grant pages → /oauth/signin/callback → the consent page → the code → the token → tools. A second
gateway on the same store takes the same token. Skipped, saying why, without glewlwyd, Chromium or
playwright."""

from __future__ import annotations

import contextlib
import importlib.util
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx2
import pytest
from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import (
    OAuthClientMetadata,
)

from specbridge.config import load_config
from specbridge.gateway import Gateway, bind
from specbridge.gateway._http import base_url
from tests.support.chromium import browser
from tests.support.front import SDK_REDIRECT, STORE_KEY, Browsing, Memory, front_config, signin_client
from tests.support.gateway import http_client, serving_on
from tests.support.glewlwyd import PASSWORD, USER, Glewlwyd
from tests.support.https import HttpsDocuments
from tests.support.upstream import Upstream, echo

__all__ = ["browser"]

CHROMIUM = os.environ.get("SPECBRIDGE_TEST_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]  # fmt: skip
REDIRECT = SDK_REDIRECT

pytestmark = [
    pytest.mark.skipif(
        not Path(CHROMIUM).is_file(), reason=f"no Chromium at {CHROMIUM} (apt-get install chromium)"
    ),
    pytest.mark.skipif(
        importlib.util.find_spec("playwright") is None, reason="the playwright package is not installed"
    ),
]


class Person(Browsing):
    """Alice, in a browser of her own: signs in at glewlwyd when the SDK sends her to the gateway,
    allows on the gateway's consent page, and hands the SDK the code."""

    def __init__(self, page: Any) -> None:
        super().__init__(page)
        self.consent: str = ""

    async def sign_in(self, authorization_url: str) -> None:
        self.visited.append(authorization_url)
        page = self.page
        await page.goto(authorization_url)  # the gateway sends her on to glewlwyd
        await page.fill("input[placeholder='Your username']", USER)
        await page.fill("input[placeholder='Your password']", PASSWORD)
        await page.click("button:has-text('OK')")
        await page.click("button:has-text('Continue')")  # glewlwyd asks no grant for `openid` alone
        await page.wait_for_selector("button:has-text('Allow')")  # the gateway's consent page
        self.consent = str(await page.inner_text("main"))
        await page.click("button:has-text('Allow')")


@contextlib.asynccontextmanager
async def serving(
    tmp_path: Path, upstream: Upstream, glewlwyd: Glewlwyd, allow: tuple[str, ...]
) -> AsyncIterator[tuple[str, Path]]:
    """The gateway on a socket bound first (its address is the front's issuer and glewlwyd's redirect
    URI); yields its base URL and its config."""
    sock = bind("127.0.0.1", 0)
    base = base_url(sock)
    # `audience`: instances behind one address (here: two ports) check tokens for the one MCP URL
    config = front_config(tmp_path, upstream, glewlwyd, base, signin_client(glewlwyd, base), allow=allow,
                          audience=f"{base}/shop/mcp")  # fmt: skip
    gateway = Gateway(load_config(config), config_path=str(config))
    async with serving_on(gateway, sock):
        yield base, config


async def sign_in_and_call(
    browser: Any, url: str, *, client_metadata_url: str | None = None
) -> tuple[Memory, Person, Any, Any]:
    context = await browser.new_context()
    page = await context.new_page()
    page.set_default_timeout(30_000)
    person = Person(page)
    await person.start()
    storage = Memory()
    provider = OAuthClientProvider(
        server_url=url,
        client_metadata=OAuthClientMetadata(
            redirect_uris=[REDIRECT],  # type: ignore[list-item]
            client_name="specbridge test client",
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method="none",
        ),
        storage=storage,
        redirect_handler=person.sign_in,
        callback_handler=person.code,
        client_metadata_url=client_metadata_url,
    )
    try:
        async with (
            httpx2.AsyncClient(auth=provider, timeout=60) as http,
            Client(streamable_http_client(url, http_client=http)) as client,
        ):
            listed = await client.list_tools()
            result = await client.call_tool("createOrder", {"product": "mug", "quantity": 2})
    finally:
        await context.close()
    return storage, person, listed, result


async def test_the_sdk_client_signs_in_through_the_front_by_metadata_document_and_by_registration(
    tmp_path: Path, upstream: Upstream, glewlwyd: Glewlwyd, browser: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SPECBRIDGE_TEST_STORE_KEY", STORE_KEY)
    upstream.route("/shops/alice-shop/orders", echo)
    with HttpsDocuments() as documents:
        async with serving(tmp_path, upstream, glewlwyd, (documents.address,)) as (base, config):
            url = f"{base}/shop/mcp"
            metadata_url = documents.serve("/clients/specbridge-test.json", {
                "client_id": documents.url("/clients/specbridge-test.json"), "client_name": "CIMD test client",
                "redirect_uris": [REDIRECT], "token_endpoint_auth_method": "none",
                "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"],
            })  # fmt: skip
            by_document = await sign_in_and_call(browser, url, client_metadata_url=metadata_url)
            by_registration = await sign_in_and_call(browser, url)
            token = by_document[0].tokens.access_token if by_document[0].tokens else ""
            other = Gateway(load_config(config), config_path=str(config))
            async with (
                serving_on(other, bind("127.0.0.1", 0)) as other_base,
                http_client(f"{other_base}/shop/mcp", key=token) as second,
            ):
                elsewhere = await second.list_tools()

    for storage, person, listed, result in (by_document, by_registration):
        assert "createOrder" in {tool.name for tool in listed.tools}
        assert not result.is_error, result
        (authorization,) = person.visited
        assert authorization.startswith(f"{base}/oauth/authorize?")
        asked = parse_qs(urlsplit(authorization).query)
        assert asked["resource"] == [url] and asked["code_challenge_method"] == ["S256"]
        assert "alice@example.com" in person.consent and "alice-agent" in person.consent
        assert storage.tokens is not None and storage.tokens.refresh_token
    assert by_document[0].client is not None and by_document[0].client.client_id == metadata_url
    assert (
        "CIMD test client" in by_document[1].consent
        and documents.fetched["/clients/specbridge-test.json"] >= 1
    )
    assert by_registration[0].client is not None and by_registration[0].client.client_id.startswith("dcr_")
    sent = [request for request in upstream.requests if request.path == "/shops/alice-shop/orders"]
    assert len(sent) == 2  # her binding, found by the rule that maps her address
    assert all(token not in value for request in sent for value in request.headers.values())
    assert elsewhere.tools
