"""The token a call sends (`grants/_grants.py`): the refresh-token grant against glewlwyd, a rotated
refresh token kept (a scripted endpoint: glewlwyd as packaged does not rotate them), and each client's
own account — none yet, renewed, or gone — on every store backend."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import pytest

from specbridge.call import CallResult
from specbridge.grants import AccountNotConnected, Fetched, Grants
from specbridge.grants._seal import Sealer
from specbridge.grants._slots import account_slot
from specbridge.grants._tokens import Tokens
from specbridge.store import Store
from tests.grants._config import api_config
from tests.support.glewlwyd import Glewlwyd
from tests.support.oauth_api import API_SCOPE, PEOPLE, STORE_KEY, new_client, token_url
from tests.support.upstream import RecordedRequest, Reply, Upstream, json_response

CALLBACK = "http://127.0.0.1:9/oauth/callback/shop"


def grants_on(store: Store, **options: Any) -> Grants:
    async def opened() -> Store:
        return store

    return Grants(opened, **options)


def refresh_token_of(glewlwyd: Glewlwyd, client_id: str, secret: str, person: str) -> str:
    """`person` connects to `client_id` once (glewlwyd's consent through its API); the refresh token."""
    verifier = "v" * 64
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
    query = {"response_type": "code", "client_id": client_id, "redirect_uri": CALLBACK, "scope": API_SCOPE,
             "state": "s" * 20, "code_challenge": challenge, "code_challenge_method": "S256"}  # fmt: skip
    back = glewlwyd.consent(f"{glewlwyd.issuer}/auth?{urlencode(query)}", person, PEOPLE[person])
    code = parse_qs(urlsplit(back).query)["code"][0]
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": CALLBACK,
        "code_verifier": verifier,
    }
    answer = httpx.post(token_url(glewlwyd), data=form, auth=(client_id, secret), timeout=10)
    return str(answer.json()["refresh_token"])


async def test_the_refresh_token_grant_gets_tokens_for_its_person_and_stores_them(
    tmp_path: Path, glewlwyd: Glewlwyd, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    client_id, secret = new_client(glewlwyd, grants=["code", "refresh_token"], redirect_uris=[CALLBACK])
    monkeypatch.setenv("GW_SECRET", secret)
    monkeypatch.setenv("GW_REFRESH", refresh_token_of(glewlwyd, client_id, secret, "bob"))
    auth = {"type": "oauth2_refresh_token", "token_url": token_url(glewlwyd), "client_id": client_id,
            "client_secret": "env:GW_SECRET", "refresh_token": "env:GW_REFRESH"}  # fmt: skip
    api = api_config(tmp_path, auth, allow=(glewlwyd.address,))
    before = glewlwyd.tokens_issued(client_id)
    grants = grants_on(store)
    try:
        first = await grants.credential(api, None)
        second = await grants.credential(api, "another-client")  # the API's one token, whoever calls
    finally:
        await grants.aclose()
    assert isinstance(first, Fetched) and isinstance(second, Fetched)
    assert first.value == second.value and first.header() == ("Authorization", f"Bearer {first.value}")
    assert glewlwyd.tokens_issued(client_id) == before + 1
    claims = json.loads(base64.urlsafe_b64decode(first.value.split(".")[1] + "=="))
    assert claims["sub"] == glewlwyd.subject("bob")


class Scripted:
    """A token endpoint that hands out a new refresh token with every answer (rotation), refuses the
    ones in `spent` with 400 `invalid_grant`, and records which refresh token each request sent."""

    def __init__(self, upstream: Upstream) -> None:
        self.sent: list[str] = []
        self.spent: set[str] = set()
        upstream.route("/token", self.answer)

    def answer(self, request: RecordedRequest) -> Reply:
        form = {name: values[0] for name, values in parse_qs(request.body.decode()).items()}
        used = form.get("refresh_token", "")
        self.sent.append(used)
        if used in self.spent:
            return json_response({"error": "invalid_grant"}, status=400)
        self.spent.add(used)  # one use each
        number = len(self.sent)
        return json_response({"access_token": f"at-{number}", "token_type": "Bearer", "expires_in": 3600,
                              "refresh_token": f"rt-{number}"})  # fmt: skip


def refresh_grant(tmp_path: Path, upstream: Upstream) -> Any:
    auth = {"type": "oauth2_refresh_token", "token_url": upstream.url + "/token", "client_id": "gw",
            "refresh_token": "env:GW_REFRESH"}  # fmt: skip
    return api_config(tmp_path, auth, allow=(upstream.address,))


async def test_a_rotated_refresh_token_is_kept_in_the_store_and_used_next_time(
    tmp_path: Path, upstream: Upstream, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GW_REFRESH", "rt-configured")
    endpoint, api = Scripted(upstream), refresh_grant(tmp_path, upstream)
    now = [1_764_500_000.0]
    for _ in range(3):  # each time the token has expired: a refresh with the last refresh token handed out
        grants = grants_on(store, clock=lambda: now[0])  # a new gateway each time: the store remembers
        try:
            credential = await grants.credential(api, None)
        finally:
            await grants.aclose()
        now[0] += 3600
    assert endpoint.sent == ["rt-configured", "rt-1", "rt-2"]
    assert isinstance(credential, Fetched) and credential.value == "at-3"


async def test_when_the_kept_refresh_token_is_refused_the_configured_one_is_tried_once(
    tmp_path: Path, upstream: Upstream, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GW_REFRESH", "rt-configured")
    endpoint, api = Scripted(upstream), refresh_grant(tmp_path, upstream)
    now = [1_764_500_000.0]
    grants = grants_on(store, clock=lambda: now[0])
    try:
        await grants.credential(api, None)
        endpoint.spent.add("rt-1")  # the kept one is revoked; the operator put a new one in the config
        monkeypatch.setenv("GW_REFRESH", "rt-new-from-the-operator")
        now[0] += 3600
        renewed = await grants.credential(api, None)
        endpoint.spent.add("rt-3")
        monkeypatch.setenv("GW_REFRESH", "rt-3")  # both refused now
        now[0] += 3600
        failed = await _refusal(grants, api)
    finally:
        await grants.aclose()
    assert isinstance(renewed, Fetched) and renewed.value == "at-3"
    assert endpoint.sent == ["rt-configured", "rt-1", "rt-new-from-the-operator", "rt-3"]
    assert failed.startswith("the API's access token could not be had: the token endpoint answered 400")


async def _refusal(grants: Grants, api: Any) -> str:
    from specbridge._errors import CallError

    try:
        await grants.credential(api, None)
    except CallError as error:
        assert error.code == "upstream-auth-failed"
        return error.message
    raise AssertionError("no refusal")


def per_client(tmp_path: Path, upstream: Upstream) -> Any:
    auth = {"type": "oauth2_authorization_code", "authorize_url": "https://auth.example.com/authorize",
            "token_url": upstream.url + "/token", "client_id": "gw", "scopes": ["orders"], "per_client": True,
            "redirect_uri": "https://gw.example.com/sb/oauth/callback/shop"}  # fmt: skip
    return api_config(tmp_path, auth, allow=(upstream.address,))


async def test_a_client_without_an_account_gets_a_connect_link_and_nothing_is_fetched(
    tmp_path: Path, upstream: Upstream, store: Store
) -> None:
    api = per_client(tmp_path, upstream)
    grants = grants_on(store)
    try:
        refused = await grants.credential(api, "bot-1")
        nobody = await grants.credential(api, None)
    finally:
        await grants.aclose()
    assert isinstance(refused, AccountNotConnected) and refused.code == "account-not-connected"
    assert refused.url.startswith("https://gw.example.com/sb/oauth/connect/shop?id=")
    assert refused.url in refused.text and "nothing was sent" in refused.text
    assert isinstance(nobody, CallResult) and not isinstance(nobody, AccountNotConnected)
    assert nobody.code == "account-not-connected" and "no client" in nobody.text
    assert upstream.requests == []


async def test_an_expired_account_is_renewed_with_its_refresh_token_and_one_refused_is_forgotten(
    tmp_path: Path, upstream: Upstream, store: Store
) -> None:
    api = per_client(tmp_path, upstream)
    endpoint = Scripted(upstream)
    now = [1_764_500_000.0]
    slot = account_slot(api, "bot-1")
    expired = Tokens("at-old", now[0] - 7200, now[0] - 3600, refresh="rt-bot-1")
    await store.put_sealed(slot, Sealer(STORE_KEY).seal(slot, expired.data()), now[0] + 86400, now[0])
    grants = grants_on(store, clock=lambda: now[0])
    try:
        renewed = await grants.credential(api, "bot-1")
        other = await grants.credential(api, "bot-2")  # bot-1's account is never bot-2's
        endpoint.spent.add("rt-1")
        now[0] += 3600
        gone = await grants.credential(api, "bot-1")
    finally:
        await grants.aclose()
    assert isinstance(renewed, Fetched) and renewed.value == "at-1"
    assert isinstance(other, AccountNotConnected)
    assert isinstance(gone, AccountNotConnected)
    assert endpoint.sent == ["rt-bot-1", "rt-1"]
    assert await store.get_sealed(slot, now[0]) is None


async def test_after_a_401_an_account_without_a_refresh_token_is_forgotten(
    tmp_path: Path, upstream: Upstream, store: Store
) -> None:
    api = per_client(tmp_path, upstream)
    now = 1_764_500_000.0
    slot = account_slot(api, "bot-1")
    await store.put_sealed(
        slot, Sealer(STORE_KEY).seal(slot, Tokens("at-only", now, now + 3600).data()), now + 3600, now
    )
    grants = grants_on(store, clock=lambda: now)
    try:
        credential = await grants.credential(api, "bot-1")
        assert isinstance(credential, Fetched) and credential.renew is not None
        assert await credential.renew() is None  # the API refused it, and nothing can renew it
        again = await grants.credential(api, "bot-1")
    finally:
        await grants.aclose()
    assert isinstance(again, AccountNotConnected)
    assert upstream.requests == []
