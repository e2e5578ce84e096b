"""The tokens the front issues (`front/_issue.py`): the MCP endpoint takes them on every instance on the
store, a refresh token is good once and rotates (a second use ends the sign-in), revoking either token
ends the sign-in and every token of it, and a person the rules no longer map gets no new token."""

from __future__ import annotations

from typing import Any

import httpx2

from specbridge.config import load_config
from tests.front._serving import Served, Serving
from tests.support.front import REDIRECT, pkce
from tests.support.gateway import IN_PROCESS, http_client, in_process_gateway

RESOURCE = f"{IN_PROCESS}/shop/mcp"


async def signed_in(served: Served) -> tuple[str, dict[str, Any]]:
    client = await served.driver.register(token_endpoint_auth_method="none")
    verifier, challenge = pkce()
    code = (await served.driver.code(client["client_id"], REDIRECT, challenge))["code"]
    answer = await served.driver.token({"grant_type": "authorization_code", "code": code,
        "redirect_uri": REDIRECT, "client_id": client["client_id"], "code_verifier": verifier})  # fmt: skip
    assert answer.status_code == 200, answer.text
    return client["client_id"], dict(answer.json())


async def status_at(transport: httpx2.AsyncBaseTransport, token: str) -> int:
    body = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}  # fmt: skip
    async with httpx2.AsyncClient(transport=transport) as http:
        answer = await http.post(RESOURCE, json=body, headers={"Authorization": f"Bearer {token}",
                                 "Accept": "application/json, text/event-stream"})  # fmt: skip
    return answer.status_code


async def refresh(served: Served, client_id: str, token: str) -> httpx2.Response:
    return await served.driver.token(
        {"grant_type": "refresh_token", "refresh_token": token, "client_id": client_id}
    )


async def test_a_second_instance_on_the_same_store_takes_the_tokens_and_refreshes_them(
    serving: Serving,
) -> None:
    async with serving() as served:
        client_id, tokens = await signed_in(served)
        async with in_process_gateway(served.config) as (other, _):
            async with http_client(RESOURCE, key=tokens["access_token"], transport=other) as mcp:
                listed = await mcp.list_tools()
            async with httpx2.AsyncClient(transport=other, base_url=IN_PROCESS) as http:
                renewed = await http.post("/oauth/token", data={"grant_type": "refresh_token",
                    "refresh_token": tokens["refresh_token"], "client_id": client_id})  # fmt: skip
    assert listed.tools
    assert renewed.status_code == 200 and renewed.json()["access_token"] != tokens["access_token"]


async def test_a_refresh_token_rotates_and_its_second_use_ends_the_sign_in(serving: Serving) -> None:
    async with serving() as served:
        client_id, tokens = await signed_in(served)
        first = await refresh(served, client_id, tokens["refresh_token"])
        assert first.status_code == 200, first.text
        rotated = first.json()
        assert rotated["refresh_token"] != tokens["refresh_token"]
        replayed = await refresh(served, client_id, tokens["refresh_token"])  # stolen and used again
        after = await refresh(served, client_id, rotated["refresh_token"])
        status = await status_at(served.transport, rotated["access_token"])
    assert replayed.status_code == 400 and replayed.json()["error"] == "invalid_grant"
    assert after.status_code == 400 and after.json()["error"] == "invalid_grant"
    assert status == 401


async def test_a_refresh_token_is_only_good_for_its_own_client(serving: Serving) -> None:
    async with serving() as served:
        _, tokens = await signed_in(served)
        other = await served.driver.register(token_endpoint_auth_method="none")
        stolen = await refresh(served, other["client_id"], tokens["refresh_token"])
    assert stolen.status_code == 400 and stolen.json()["error"] == "invalid_grant"


async def test_a_revoked_sign_in_ends_its_tokens_at_once(serving: Serving) -> None:
    async with serving() as served:
        client_id, tokens = await signed_in(served)
        before = await status_at(served.transport, tokens["access_token"])  # checked and kept
        revoked = await served.http.post(
            "/oauth/revoke", data={"token": tokens["refresh_token"], "client_id": client_id}
        )
        after = await status_at(served.transport, tokens["access_token"])
        renewed = await refresh(served, client_id, tokens["refresh_token"])
        async with in_process_gateway(served.config) as (other, _):  # another instance: asks the store
            elsewhere = await status_at(other, tokens["access_token"])
    assert before == 200 and revoked.status_code == 200
    assert after == 401 and elsewhere == 401
    assert renewed.json()["error"] == "invalid_grant"


async def test_revoking_an_access_token_ends_its_sign_in_and_another_clients_revocation_does_nothing(
    serving: Serving,
) -> None:
    async with serving() as served:
        client_id, tokens = await signed_in(served)
        other = await served.driver.register(token_endpoint_auth_method="none")
        foreign = await served.http.post(
            "/oauth/revoke", data={"token": tokens["access_token"], "client_id": other["client_id"]}
        )
        still = await status_at(served.transport, tokens["access_token"])
        own = await served.http.post(
            "/oauth/revoke", data={"token": tokens["access_token"], "client_id": client_id}
        )
        ended = await refresh(served, client_id, tokens["refresh_token"])
    assert foreign.status_code == 200 and still == 200
    assert own.status_code == 200 and ended.json()["error"] == "invalid_grant"


async def test_a_person_the_rules_no_longer_map_gets_no_new_token(serving: Serving) -> None:
    async with serving() as served:
        client_id, tokens = await signed_in(served)
        text = served.config.read_text(encoding="utf-8").replace("alice@example.com", "nobody@example.com")
        served.config.write_text(text, encoding="utf-8")
        await served.gateway.reload(load_config(served.config))
        renewed = await refresh(served, client_id, tokens["refresh_token"])
    assert renewed.status_code == 400 and "no longer mapped" in renewed.json()["error_description"]


async def test_a_token_with_a_changed_signature_is_refused(serving: Serving) -> None:
    async with serving() as served:
        _, tokens = await signed_in(served)
        header, payload, signature = tokens["access_token"].split(".")
        forged = f"{header}.{payload}.{signature[::-1]}"
        assert await status_at(served.transport, forged) == 401


def test_off_loopback_the_fronts_issuer_must_be_https() -> None:
    from specbridge.config import config_from_data
    from specbridge.gateway import exposure_refusal

    def config(issuer: str) -> Any:
        return config_from_data({
            "apis": {"shop": {"spec": "/a.yaml", "base_url": "https://api.example.com",
                              "oauth": {"issuer": issuer, "audience": "https://mcp.example.com/shop/mcp"}}},
            "clients": {"a": {"apis": ["shop"]}},
            "oauth_server": {"issuer": issuer, "upstream": {"issuer": "https://login.example.com", "client_id": "s"}},
            "store_key": "env:SPECBRIDGE_TEST_STORE_KEY",
        }, source="c.yaml")  # fmt: skip

    refused = exposure_refusal("0.0.0.0", config("http://mcp.example.com"))
    assert refused is not None and "oauth_server.issuer" in refused.message
    assert exposure_refusal("0.0.0.0", config("https://mcp.example.com")) is None
    assert exposure_refusal("127.0.0.1", config("http://127.0.0.1:8000")) is None
