"""The gateway as an OAuth client of the API it serves (`auth.type: oauth2_client_credentials`, grants/),
with a real authorization server (Debian's glewlwyd) as the token endpoint and a loopback API that
checks every token against glewlwyd's key: many calls share one token, a token is fetched again when
it expires or the API refuses it, a restart and a second instance use the stored one, and a token
endpoint that refuses the gateway gives `upstream-auth-failed` with nothing sent. Skipped, saying why,
without glewlwyd."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest

from specbridge.access import key_sha256
from tests.support.gateway import IN_PROCESS, http_client, in_process_gateway, text
from tests.support.glewlwyd import Glewlwyd
from tests.support.oauth_api import API_SCOPE, STORE_KEY, new_client, oauth_config, protect, token_url
from tests.support.processes import gateway_processes
from tests.support.stores import namespaces, shared_store
from tests.support.upstream import Upstream, json_response

__all__ = ["namespaces", "shared_store"]
KEYS = [f"sbk_upstream-oauth-client-{number}" for number in range(8)]
CLIENTS = {f"agent-{n}": {"key_sha256": key_sha256(key), "apis": ["shop"]} for n, key in enumerate(KEYS)}


@pytest.fixture
def grant(glewlwyd: Glewlwyd, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """`auth` of the shop API: client credentials of a new glewlwyd client (its secret in the env)."""
    client_id, secret = new_client(glewlwyd, grants=["client_credentials"])
    monkeypatch.setenv("SPECBRIDGE_TEST_STORE_KEY", STORE_KEY)
    monkeypatch.setenv("SHOP_CLIENT_SECRET", secret)
    return {
        "type": "oauth2_client_credentials",
        "token_url": token_url(glewlwyd),
        "client_id": client_id,
        "client_secret": "env:SHOP_CLIENT_SECRET",
        "scopes": [API_SCOPE],
    }


def bearers(upstream: Upstream) -> list[str]:
    return [request.headers.get("authorization", "") for request in upstream.requests]


async def test_fifty_calls_over_eight_clients_make_one_token_request(
    tmp_path: Path, upstream: Upstream, glewlwyd: Glewlwyd, grant: dict[str, Any]
) -> None:
    protect(upstream, glewlwyd, "/notes")
    config = oauth_config(tmp_path, upstream, glewlwyd, auth=grant, clients=CLIENTS)
    results: list[types.CallToolResult] = []

    async def agent(key: str, calls: int, transport: Any) -> None:
        async with (
            http_client(f"{IN_PROCESS}/mcp", key=key, transport=transport) as client,
            anyio.create_task_group() as each,
        ):
            for _ in range(calls):
                each.start_soon(lambda: _call(client, results))

    with anyio.fail_after(120):
        async with in_process_gateway(config) as (asgi, gateway), anyio.create_task_group() as agents:
            for number, key in enumerate(KEYS):
                agents.start_soon(agent, key, 7 if number < 2 else 6, asgi)  # 2 * 7 + 6 * 6 = 50
    assert len(results) == 50
    assert all(not result.is_error for result in results), [text(r) for r in results if r.is_error]
    assert {result.structured_content["client_id"] for result in results if result.structured_content} == {
        grant["client_id"]
    }
    assert len(set(bearers(upstream))) == 1 and len(upstream.requests) == 50
    assert glewlwyd.tokens_issued(grant["client_id"]) == 1  # glewlwyd's own count
    assert gateway.calls.grants.requests == 1
    token = bearers(upstream)[0].removeprefix("Bearer ")
    assert all(token not in text(result) for result in results)  # the API echoed it: the agent sees
    assert all("[credential]" in text(result) for result in results)  # `[credential]` instead


async def _call(client: Any, results: list[types.CallToolResult]) -> None:
    results.append(await client.call_tool("listNotes", {}))


async def test_an_expired_token_is_fetched_again_once(
    tmp_path: Path, upstream: Upstream, glewlwyd: Glewlwyd, grant: dict[str, Any]
) -> None:
    protect(upstream, glewlwyd, "/notes")
    config = oauth_config(tmp_path, upstream, glewlwyd, auth=grant, clients=CLIENTS)
    async with (
        in_process_gateway(config) as (asgi, gateway),
        http_client(f"{IN_PROCESS}/mcp", key=KEYS[0], transport=asgi) as client,
    ):
        first = await client.call_tool("listNotes", {})
        later = time.time() + 3600  # glewlwyd's tokens live an hour: this one has expired
        gateway.calls.grants.clock = lambda: later
        async with anyio.create_task_group() as calls:
            for _ in range(10):
                calls.start_soon(client.call_tool, "listNotes", {})
        last = await client.call_tool("listNotes", {})
    assert not first.is_error and not last.is_error
    assert glewlwyd.tokens_issued(grant["client_id"]) == 2
    seen = bearers(upstream)
    assert len(set(seen)) == 2 and seen[0] != seen[-1] and len(seen) == 12


async def test_a_token_the_api_refuses_is_fetched_again_once_and_the_call_sent_once_more(
    tmp_path: Path, upstream: Upstream, glewlwyd: Glewlwyd, grant: dict[str, Any]
) -> None:
    refused = protect(upstream, glewlwyd, "/notes")
    config = oauth_config(tmp_path, upstream, glewlwyd, auth=grant, clients=CLIENTS)
    async with (
        in_process_gateway(config) as (asgi, _),
        http_client(f"{IN_PROCESS}/mcp", key=KEYS[0], transport=asgi) as client,
    ):
        assert not (await client.call_tool("listNotes", {})).is_error
        refused.add(bearers(upstream)[0].removeprefix("Bearer "))  # the API revoked it
        async with anyio.create_task_group() as calls:
            for _ in range(4):
                calls.start_soon(client.call_tool, "listNotes", {})
        again = await client.call_tool("listNotes", {})
    assert not again.is_error, text(again)
    assert glewlwyd.tokens_issued(grant["client_id"]) == 2  # four refused at once: one new token
    old, new = bearers(upstream)[0], bearers(upstream)[-1]
    assert old != new
    assert bearers(upstream).count(old) == 5  # the first call, and each of the four once
    assert bearers(upstream).count(new) == 5  # the four once more, and the last call


async def test_a_second_401_is_the_calls_result_and_it_is_not_sent_a_third_time(
    tmp_path: Path, upstream: Upstream, glewlwyd: Glewlwyd, grant: dict[str, Any]
) -> None:
    upstream.route("/products/p1", json_response({"error": "invalid_token"}, status=401))
    config = oauth_config(tmp_path, upstream, glewlwyd, auth=grant, clients=CLIENTS)
    async with (
        in_process_gateway(config) as (asgi, _),
        http_client(f"{IN_PROCESS}/mcp", key=KEYS[0], transport=asgi) as client,
    ):
        result = await client.call_tool("getProduct", {"id": "p1"})
    assert result.is_error and "401" in text(result)
    assert [request.path for request in upstream.requests] == ["/products/p1", "/products/p1"]
    assert len(set(bearers(upstream))) == 2
    assert glewlwyd.tokens_issued(grant["client_id"]) == 2


async def test_a_refused_token_endpoint_gives_upstream_auth_failed_and_nothing_is_sent(
    tmp_path: Path,
    upstream: Upstream,
    glewlwyd: Glewlwyd,
    grant: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    protect(upstream, glewlwyd, "/notes")
    monkeypatch.setenv("SHOP_CLIENT_SECRET", "not-the-secret-9f2c")
    config = oauth_config(tmp_path, upstream, glewlwyd, auth=grant, clients=CLIENTS)
    async with (
        in_process_gateway(config) as (asgi, _),
        http_client(f"{IN_PROCESS}/mcp", key=KEYS[0], transport=asgi) as client,
    ):
        result = await client.call_tool("listNotes", {})
    assert result.is_error
    assert text(result).startswith("[upstream-auth-failed]")
    assert "answered 403" in text(result) and "nothing was sent" in text(result)
    assert "not-the-secret-9f2c" not in text(result)
    assert upstream.requests == []


async def test_a_restarted_gateway_uses_the_stored_token(
    tmp_path: Path, upstream: Upstream, glewlwyd: Glewlwyd, grant: dict[str, Any]
) -> None:
    protect(upstream, glewlwyd, "/notes")
    config = oauth_config(tmp_path, upstream, glewlwyd, auth=grant, clients=CLIENTS)
    for _ in range(2):
        async with (
            in_process_gateway(config) as (asgi, _),
            http_client(f"{IN_PROCESS}/mcp", key=KEYS[0], transport=asgi) as client,
        ):
            assert not (await client.call_tool("listNotes", {})).is_error
    assert glewlwyd.tokens_issued(grant["client_id"]) == 1
    assert len(set(bearers(upstream))) == 1


async def test_two_gateway_processes_on_one_store_share_one_token(
    tmp_path: Path, upstream: Upstream, glewlwyd: Glewlwyd, grant: dict[str, Any], shared_store: str
) -> None:
    protect(upstream, glewlwyd, "/notes")
    config = oauth_config(tmp_path, upstream, glewlwyd, auth=grant, clients=CLIENTS, store=shared_store)
    results: list[types.CallToolResult] = []

    async def calls(base: str, key: str) -> None:
        async with http_client(f"{base}/mcp", key=key) as client:
            for _ in range(5):
                results.append(await client.call_tool("listNotes", {}))

    async with gateway_processes(config, 2, env={"SPECBRIDGE_TEST_STORE_KEY": STORE_KEY}) as (one, two):
        with anyio.fail_after(120):
            async with anyio.create_task_group() as agents:
                for number, base in enumerate((one.base, two.base, one.base, two.base)):
                    agents.start_soon(calls, base, KEYS[number])
    assert len(results) == 20 and not any(result.is_error for result in results), [text(r) for r in results]
    assert glewlwyd.tokens_issued(grant["client_id"]) == 1
    assert len(set(bearers(upstream))) == 1
