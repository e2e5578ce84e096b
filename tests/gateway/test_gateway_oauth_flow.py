"""The official MCP SDK client's own OAuth flow (`mcp.client.auth.OAuthClientProvider`) against the
gateway and a real authorization server (Debian's glewlwyd), end to end, with a person signing in in
Debian's Chromium (driven by playwright):

401 with `resource_metadata` → the gateway's Protected Resource Metadata → glewlwyd's metadata (OpenID
Connect discovery) → dynamic client registration → the sign-in and consent pages → the authorization
code (PKCE, `resource` = the MCP URL) → the token → `tools/list` and a call through to the loopback
upstream, as the client `clients.<her sub>`, whose binding and secret apply. The token never reaches
the upstream. Skipped, saying why, without glewlwyd, Chromium or playwright."""

from __future__ import annotations

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

from tests.support.chromium import NEEDS_CHROMIUM, browser
from tests.support.front import SDK_REDIRECT, Browsing, Memory
from tests.support.gateway import running_gateway, write_config
from tests.support.glewlwyd import PASSWORD, USER, USER_SUB, Glewlwyd
from tests.support.upstream import Upstream, echo

__all__ = ["browser"]

REDIRECT = SDK_REDIRECT

pytestmark = NEEDS_CHROMIUM


class Person(Browsing):
    """Signs in at glewlwyd's pages when the SDK sends her there, and hands the SDK the code."""

    async def sign_in(self, authorization_url: str) -> None:
        self.visited.append(authorization_url)
        page = self.page
        await page.goto(authorization_url)
        await page.fill("input[placeholder='Your username']", USER)
        await page.fill("input[placeholder='Your password']", PASSWORD)
        await page.click("button:has-text('OK')")
        await page.check("input[type=checkbox]")  # "Please check the box and click on 'Grant access'"
        await page.click("button:has-text('Grant access')")
        await page.click("button:has-text('Continue')")


async def test_the_sdk_client_signs_in_through_the_authorization_server_and_calls_a_tool(
    tmp_path: Path, upstream: Upstream, glewlwyd: Glewlwyd, browser: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    upstream.route("/shops/alice-shop/orders", echo)
    oauth = f"oauth: {{issuer: {glewlwyd.issuer}, scopes_supported: [mcp:tools]}}\n"
    auth = "auth: {type: header, name: X-Shop-Token, secrets: {alice: env:SHOP_TOKEN_ALICE}}\n"
    clients = f"""\
clients:
  {USER_SUB}:
    apis: [shop]
    bindings: {{shop: {{path.shopId: alice-shop}}}}
    secrets: {{shop: alice}}
"""
    monkeypatch.setenv("SHOP_TOKEN_ALICE", "upstream-token-for-alice")
    config = write_config(tmp_path, upstream, extra=auth + oauth, clients=clients, allow=(glewlwyd.address,))
    page = await browser.new_page()
    page.set_default_timeout(30_000)
    person = Person(page)
    await person.start()
    storage = Memory()
    try:
        async with running_gateway(config) as (base, _):
            url = f"{base}/shop/mcp"
            glewlwyd.allow_resources(url)
            provider = OAuthClientProvider(
                server_url=url,
                client_metadata=OAuthClientMetadata(
                    redirect_uris=[REDIRECT],  # type: ignore[list-item]
                    client_name="specbridge test client",
                    grant_types=["authorization_code", "refresh_token"],
                    response_types=["code"],
                    token_endpoint_auth_method="client_secret_post",
                ),
                storage=storage,
                redirect_handler=person.sign_in,
                callback_handler=person.code,
            )
            async with (
                httpx2.AsyncClient(auth=provider, timeout=60) as http,
                Client(streamable_http_client(url, http_client=http)) as client,
            ):
                listed = await client.list_tools()
                result = await client.call_tool("createOrder", {"product": "mug", "quantity": 2})
    finally:
        await page.close()

    assert "createOrder" in {tool.name for tool in listed.tools}
    assert not result.is_error, result
    (authorization,) = person.visited
    asked = parse_qs(urlsplit(authorization).query)
    assert authorization.startswith(f"{glewlwyd.issuer}/auth?")
    assert asked["resource"] == [url]  # RFC 8707, from the gateway's metadata
    assert asked["scope"] == ["mcp:tools"]  # from the challenge and the metadata
    assert asked["code_challenge_method"] == ["S256"]
    assert storage.client is not None and storage.tokens is not None
    token = storage.tokens.access_token
    sent = upstream.requests[-1]
    assert sent.path == "/shops/alice-shop/orders"  # her binding, found by her `sub`
    assert sent.headers["x-shop-token"] == "upstream-token-for-alice"
    assert all(token not in value for value in sent.headers.values()) and token.encode() not in sent.body
