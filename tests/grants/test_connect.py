"""Connecting a client's own account (`grants/_connect.py`) against glewlwyd (its consent given through
its API here; its pages in Chromium: tests/gateway/test_gateway_accounts_flow.py): links and states
work once, for ten minutes, in the browser that started them, and the tokens land under the link's
client only."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from specbridge.grants import AccountNotConnected, ConnectError, Fetched, GrantError, Grants
from specbridge.store import Store
from tests.grants._config import api_config
from tests.support.glewlwyd import Glewlwyd
from tests.support.oauth_api import API_SCOPE, PEOPLE, authorize_url, new_client, token_url

CALLBACK = "http://127.0.0.1:9/oauth/callback/shop"  # never reached: glewlwyd's answer names it


@pytest.fixture
def api(tmp_path: Path, glewlwyd: Glewlwyd) -> Any:
    client_id, _ = new_client(
        glewlwyd, grants=["code", "refresh_token"], redirect_uris=[CALLBACK], public=True
    )
    auth = {"type": "oauth2_authorization_code", "authorize_url": authorize_url(glewlwyd),
            "token_url": token_url(glewlwyd), "client_id": client_id, "scopes": [API_SCOPE],
            "per_client": True, "redirect_uri": CALLBACK}  # fmt: skip
    return api_config(tmp_path, auth, allow=(glewlwyd.address,))


@pytest.fixture
async def grants(store: Store) -> Any:
    async def opened() -> Store:
        return store

    made = Grants(opened)
    yield made
    await made.aclose()


async def link_id(grants: Grants, api: Any, client: str) -> str:
    refused = await grants.credential(api, client)
    assert isinstance(refused, AccountNotConnected)
    return parse_qs(urlsplit(refused.url).query)["id"][0]


def consent(glewlwyd: Glewlwyd, url: str, person: str) -> tuple[str, str]:
    """(state, code) of glewlwyd's answer once `person` granted what `url` asks."""
    query = parse_qs(urlsplit(glewlwyd.consent(url, person, PEOPLE[person])).query)
    return query["state"][0], query["code"][0]


def subject_of(token: str) -> str:
    return str(json.loads(base64.urlsafe_b64decode(token.split(".")[1] + "=="))["sub"])


async def test_the_authorization_asks_for_a_code_with_pkce_and_the_configured_scopes(
    grants: Grants, api: Any
) -> None:
    url = await grants.connections.authorize(api, await link_id(grants, api, "bot-1"), "browser-1")
    query = {name: values[0] for name, values in parse_qs(urlsplit(url).query).items()}
    assert url.startswith(api.auth.grant.authorize_url + "?")
    assert query["response_type"] == "code" and query["code_challenge_method"] == "S256"
    assert query["scope"] == API_SCOPE and query["redirect_uri"] == CALLBACK
    assert len(query["code_challenge"]) == 43 and len(query["state"]) >= 32


async def test_a_link_connects_the_account_of_its_own_client_once(
    grants: Grants, api: Any, glewlwyd: Glewlwyd
) -> None:
    connect_id = await link_id(grants, api, "bot-1")
    offer = await grants.connections.offer(api, connect_id)
    assert (offer.client, offer.api, offer.authorization_host) == ("bot-1", "shop", glewlwyd.address)
    url = await grants.connections.authorize(api, connect_id, "browser-1")
    with pytest.raises(ConnectError, match="used or expired"):
        await grants.connections.authorize(api, connect_id, "browser-2")
    state, code = consent(glewlwyd, url, "bob")
    assert await grants.connections.finish(api, state, code, "browser-1") == "bot-1"
    mine = await grants.credential(api, "bot-1")
    theirs = await grants.credential(api, "bot-2")
    assert isinstance(mine, Fetched) and subject_of(mine.value) == glewlwyd.subject("bob")
    assert isinstance(theirs, AccountNotConnected)


async def test_a_state_works_once_and_only_in_the_browser_that_started_it(
    grants: Grants, api: Any, glewlwyd: Glewlwyd
) -> None:
    url = await grants.connections.authorize(api, await link_id(grants, api, "bot-1"), "browser-1")
    state, code = consent(glewlwyd, url, "bob")
    for forged in ("someone-elses-browser", None):  # a callback forged with the state, without the cookie
        with pytest.raises(ConnectError, match="another browser"):
            await grants.connections.finish(api, state, code, forged)
        with pytest.raises(ConnectError, match="another browser"):  # a forged decline (`error=`) too
            await grants.connections.drop(api, state, forged)
    assert await grants.connections.finish(api, state, code, "browser-1") == "bot-1"  # nothing was spent
    with pytest.raises(ConnectError, match="used or expired"):
        await grants.connections.finish(api, state, code, "browser-1")
    assert isinstance(await grants.credential(api, "bot-1"), Fetched)


async def test_a_code_is_no_use_without_the_verifier_of_its_own_authorization(
    grants: Grants, api: Any, glewlwyd: Glewlwyd
) -> None:
    first = await grants.connections.authorize(api, await link_id(grants, api, "bot-1"), "browser-1")
    second = await grants.connections.authorize(api, await link_id(grants, api, "bot-1"), "browser-1")
    state, _ = consent(glewlwyd, first, "bob")
    _, other_code = consent(glewlwyd, second, "bob")
    with pytest.raises(GrantError, match="answered 4"):
        await grants.connections.finish(api, state, other_code, "browser-1")


async def test_links_and_states_end_after_ten_minutes(grants: Grants, api: Any) -> None:
    now = [1_764_500_000.0]
    grants.clock = lambda: now[0]
    connect_id = await link_id(grants, api, "bot-1")
    other_id = await link_id(grants, api, "bot-1")
    url = await grants.connections.authorize(api, other_id, "browser-1")
    now[0] += 601
    with pytest.raises(ConnectError, match="used or expired"):
        await grants.connections.offer(api, connect_id)
    state = parse_qs(urlsplit(url).query)["state"][0]
    with pytest.raises(ConnectError, match="used or expired"):
        await grants.connections.finish(api, state, "a-code", "browser-1")
