"""A gateway whose API connects per-client accounts (`oauth2_authorization_code`, `per_client: true`),
served on a loopback socket bound first, so its callback URL is in its config and in glewlwyd's client,
and a person's steps on glewlwyd's pages. Shared by the account-flow and connect-page tests."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from specbridge.config import load_config
from specbridge.gateway import Gateway, base_url, bind
from tests.support.gateway import serving_on
from tests.support.glewlwyd import Glewlwyd
from tests.support.oauth_api import API_SCOPE, authorize_url, new_client, oauth_config, token_url
from tests.support.upstream import Upstream


@contextlib.asynccontextmanager
async def serving(
    tmp_path: Path, upstream: Upstream, glewlwyd: Glewlwyd, clients: dict[str, Any]
) -> AsyncIterator[tuple[str, str]]:
    """The gateway on a socket bound first; yields its base URL and glewlwyd's client id."""
    sock = bind("127.0.0.1", 0)
    base = base_url(sock)
    callback = f"{base}/oauth/callback/shop"
    client_id, _ = new_client(
        glewlwyd, grants=["code", "refresh_token"], redirect_uris=[callback], public=True
    )
    auth = {
        "type": "oauth2_authorization_code",
        "authorize_url": authorize_url(glewlwyd),
        "token_url": token_url(glewlwyd),
        "client_id": client_id,
        "scopes": [API_SCOPE],
        "per_client": True,
        "redirect_uri": callback,
    }
    config = oauth_config(tmp_path, upstream, glewlwyd, auth=auth, clients=clients)
    gateway = Gateway(load_config(config), config_path=str(config))
    async with serving_on(gateway, sock):
        yield base, client_id


async def sign_in_and_grant(page: Any, person: str, password: str) -> None:
    """On glewlwyd's pages (where the connect page's button led): `person` signs in and grants access;
    returns once the browser is back at the gateway's callback."""
    await page.fill("input[placeholder='Your username']", person)
    await page.fill("input[placeholder='Your password']", password)
    await page.click("button:has-text('OK')")
    await page.check("input[type=checkbox]")
    await page.click("button:has-text('Grant access')")
    await page.click("button:has-text('Continue')")
    await page.wait_for_url("**/oauth/callback/shop?*")
