"""The gateway's own authorization server (`oauth_server:`) in front of glewlwyd, for tests.

    client_id = signin_client(glewlwyd, base)            # glewlwyd's client for the front (its callback)
    config = front_config(tmp_path, upstream, glewlwyd, base, client_id)
    driver = Driver(http, glewlwyd)                      # an httpx2 client on the gateway (cookies kept)
    code = await driver.code(client_id=..., redirect_uri=..., verifier=...)   # sign-in and consent

glewlwyd signs `alice` in (her ID token carries `email: alice@example.com`), and the operator's rule
maps that address to `clients.alice-agent`. The driver follows the flow as a browser would (the
gateway's redirect to glewlwyd, glewlwyd's consent through its own API instead of its pages, back to
the gateway's callback, the consent form posted with the page's Origin); the Chromium test drives the
same pages in a browser (tests/gateway/test_gateway_front_flow.py).
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import re
import secrets
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx2
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthToken

from tests.support.gateway import SPEC
from tests.support.glewlwyd import EMAIL, PASSWORD, USER, Glewlwyd
from tests.support.upstream import Upstream

STORE_KEY = "a-store-key-for-tests-only-0123456789abcdef"
MAPPED = "alice-agent"
REDIRECT = "http://127.0.0.1:1/callback"  # the MCP client's redirect URI (never reached)


def signin_client(glewlwyd: Glewlwyd, base: str) -> str:
    """A client of glewlwyd for the front, whose redirect URIs are the front's and the admin page's
    sign-in callbacks."""
    client_id = f"front-{secrets.token_hex(4)}"
    callbacks = [f"{base}/oauth/signin/callback", f"{base}/admin/sign-in/callback"]
    glewlwyd.add_client(client_id, None, grants=["code"], scopes=["openid"], redirect_uris=callbacks)
    return client_id


def front_config(
    folder: Path,
    upstream: Upstream,
    glewlwyd: Glewlwyd,
    base: str,
    client_id: str,
    *,
    store: str | None = None,
    users: list[dict[str, str]] | None = None,
    registration: dict[str, Any] | None = None,
    allow: tuple[str, ...] = (),
    auth: dict[str, Any] | None = None,
    audience: str | None = None,
    admins: list[dict[str, str]] | None = None,
    tools: dict[str, Any] | None = None,
) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "shop.yaml").write_text(SPEC, encoding="utf-8")
    api: dict[str, Any] = {
        "spec": "./shop.yaml",
        "base_url": upstream.url,
        "egress": {"allow": [upstream.address]},
        "oauth": {"issuer": base, **({"audience": audience} if audience else {})},
    }
    if auth is not None:
        api["auth"] = auth
    if tools is not None:
        api["tools"] = tools
    config = {
        "apis": {"shop": api},
        "clients": {
            MAPPED: {"apis": ["shop"], "bindings": {"shop": {"path.shopId": "alice-shop"}}},
            "nobody-agent": {"apis": ["shop"]},
        },
        "oauth_server": {
            "issuer": base,
            "upstream": {"issuer": glewlwyd.issuer, "client_id": client_id, "scopes": ["openid"]},
            "users": users if users is not None else [{"claim": "email", "value": EMAIL, "client": MAPPED}],
            "registration": registration or {"dynamic": True},
            "egress": {"allow": [glewlwyd.address, *allow]},
            **({"admins": admins} if admins is not None else {}),
        },
        **({"admins": {rule["admin"]: {} for rule in admins}} if admins else {}),
        "store": store or f"sqlite:///{folder / 'state.db'}",
        "store_key": "env:SPECBRIDGE_TEST_STORE_KEY",
    }
    path = folder / "specbridge.yaml"
    path.write_text(json.dumps(config), encoding="utf-8")
    return path


def pkce() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
    return verifier, challenge


def query_of(url: str) -> dict[str, str]:
    return {name: values[0] for name, values in parse_qs(urlsplit(url).query).items()}


class Driver:
    """Walks the front's authorization code flow as a browser would (see the module)."""

    def __init__(self, http: httpx2.AsyncClient, glewlwyd: Glewlwyd, base: str) -> None:
        self.http = http
        self.glewlwyd = glewlwyd
        self.base = base

    def authorize_url(self, client_id: str, redirect_uri: str, challenge: str, **more: str) -> str:
        query = {"response_type": "code", "client_id": client_id, "redirect_uri": redirect_uri,
                 "code_challenge": challenge, "code_challenge_method": "S256", "state": "client-state-1",
                 "resource": f"{self.base}/shop/mcp", "scope": "", **more}  # fmt: skip
        return f"{self.base}/oauth/authorize?{urlencode(query)}"

    async def to_provider(self, client_id: str, redirect_uri: str, challenge: str, **more: str) -> str:
        answer = await self.http.get(self.authorize_url(client_id, redirect_uri, challenge, **more))
        assert answer.status_code == 303, answer.text
        return answer.headers["location"]

    def at_provider(self, provider_url: str) -> str:
        """alice signs in and grants at glewlwyd: the URL it sends her back to (the front's callback)."""
        return self.glewlwyd.consent(provider_url, USER, PASSWORD)

    async def consent_page(self, callback: str) -> httpx2.Response:
        return await self.http.get(callback)

    async def answer(self, page: httpx2.Response, decision: str = "allow") -> httpx2.Response:
        fields = dict(re.findall(r'name="(consent|csrf)" value="([^"]+)"', page.text))
        return await self.http.post(
            f"{self.base}/oauth/consent",
            data={**fields, "decision": decision},
            headers={"Origin": self.base},
        )

    async def code(self, client_id: str, redirect_uri: str, challenge: str, **more: str) -> dict[str, str]:
        """The whole flow: the query the front sends the client back with (`code`, `state`, `iss`)."""
        page = await self.consent_page(
            self.at_provider(await self.to_provider(client_id, redirect_uri, challenge, **more))
        )
        assert page.status_code == 200, page.text
        back = await self.answer(page)
        assert back.status_code == 303, back.text
        assert back.headers["location"].startswith(redirect_uri + "?")
        return query_of(back.headers["location"])

    async def token(self, form: dict[str, str], auth: tuple[str, str] | None = None) -> httpx2.Response:
        if auth is None:
            return await self.http.post(f"{self.base}/oauth/token", data=form)
        return await self.http.post(f"{self.base}/oauth/token", data=form, auth=auth)

    async def register(self, **metadata: Any) -> dict[str, Any]:
        answer = await self.http.post(
            f"{self.base}/oauth/register", json={"redirect_uris": [REDIRECT], **metadata}
        )
        assert answer.status_code == 201, answer.text
        return dict(answer.json())


class Memory:
    """The SDK's token storage, in memory (`mcp.client.auth.TokenStorage`)."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


SDK_REDIRECT = "http://127.0.0.1:1/oauth/callback"  # never reached: the browser's request to it is caught


class Browsing:
    """A person in a browser page of their own, walking the SDK client's OAuth flow: `start` catches
    the browser's way back to `SDK_REDIRECT`, `code` is what the SDK's callback gets from it; a
    subclass's `sign_in(authorization_url)` walks the pages in between (adding the URL to `visited`)."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.visited: list[str] = []
        self.arrived: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    async def start(self) -> None:
        async def caught(route: Any) -> None:
            if not self.arrived.done():
                self.arrived.set_result(route.request.url)
            await route.fulfill(status=200, content_type="text/plain", body="signed in; back to the client")

        await self.page.route(SDK_REDIRECT + "?*", caught)

    async def code(self) -> AuthorizationCodeResult:
        url = await asyncio.wait_for(self.arrived, 60)
        query = {name: values[0] for name, values in parse_qs(urlsplit(url).query).items()}
        return AuthorizationCodeResult(code=query["code"], state=query.get("state"), iss=query.get("iss"))
