"""Handshake-era MCP sessions served by any instance (`sessions: store`): two gateways (two `Gateway`
objects and their ASGI apps, in this process) on one PostgreSQL and on one Redis store, and requests that
alternate between them as a round-robin balancer without stickiness sends them. The SDK client lists and
calls tools twenty times and never meets `Session not found`; another client's key cannot use a session;
a DELETE on one instance ends the session on the other; a store that cannot be reached is a 503 with
`store-unavailable`, never a 500."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import itertools
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx2
import mcp_types as types
import pytest

from specbridge.store import open_store
from tests.gateway._rawrpc import PROTOCOL
from tests.gateway._shared import RoundRobin, gateways
from tests.support.gateway import IN_PROCESS, http_client, write_config
from tests.support.processes import gateway_processes
from tests.support.stores import namespaces, shared_store
from tests.support.upstream import Upstream, json_response

__all__ = ["namespaces", "shared_store"]

KEYS = {"alice": "alice-key-0123456789", "bob": "bob-key-0123456789"}
URL = f"{IN_PROCESS}/mcp"
ACCEPT = {"Accept": "application/json, text/event-stream"}


@pytest.fixture(autouse=True)
def upstream_routes(upstream: Upstream) -> None:
    upstream.route("/products/p1", json_response({"id": "p1", "name": "Mug"}))


def shared_config(tmp_path: Path, upstream: Upstream, store: str, extra: str = "") -> Path:
    clients = "clients:\n" + "".join(
        f"  {name}:\n    key_sha256: {hashlib.sha256(key.encode()).hexdigest()}\n    apis: [shop]\n"
        for name, key in KEYS.items()
    )
    return write_config(tmp_path, upstream, clients=f"store: {store}\n{extra}{clients}")


@contextlib.asynccontextmanager
async def instances(config: Path, count: int = 2) -> AsyncIterator[list[httpx2.ASGITransport]]:
    async with gateways(config, count) as made:
        yield [transport for transport, _ in made]


@contextlib.asynccontextmanager
async def clients_of_two(config: Path) -> AsyncIterator[tuple[httpx2.AsyncClient, httpx2.AsyncClient]]:
    """An HTTP client for each of two instances."""
    async with (
        instances(config) as (one, two),
        httpx2.AsyncClient(transport=one) as first,
        httpx2.AsyncClient(transport=two) as second,
    ):
        yield first, second


async def rpc(
    http: httpx2.AsyncClient, body: dict[str, Any], key: str, session: str | None = None
) -> httpx2.Response:
    headers = {**ACCEPT, "Authorization": f"Bearer {key}", "MCP-Protocol-Version": PROTOCOL}
    if session is not None:
        headers["Mcp-Session-Id"] = session
    return await http.post(URL, json=body, headers=headers)


async def opened(http: httpx2.AsyncClient, key: str) -> str:
    """A session opened at protocol 2025-06-18 (initialize, then initialized): its id."""
    params = {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}
    answer = await rpc(http, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params}, key)
    assert answer.status_code == 200, answer.text
    assert answer.json()["result"]["protocolVersion"] == PROTOCOL
    session = answer.headers["mcp-session-id"]
    note = await rpc(http, {"jsonrpc": "2.0", "method": "notifications/initialized"}, key, session)
    assert note.status_code == 202, note.text
    return session


def call(number: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": number, "method": method, "params": params}


async def test_the_sdk_client_lists_and_calls_twenty_times_across_two_instances(
    tmp_path: Path, upstream: Upstream, shared_store: str
) -> None:
    config = shared_config(tmp_path, upstream, shared_store)
    async with instances(config) as both:
        balancer = RoundRobin(both)
        async with http_client(URL, mode="legacy", key=KEYS["alice"], transport=balancer) as client:
            for _ in range(20):
                listed = await client.list_tools()
                result = await client.call_tool("getProduct", {"id": "p1"})
                assert [tool.name for tool in listed.tools][:1] == ["getProduct"]
                assert result.structured_content == {"id": "p1", "name": "Mug"}, result
    assert min(balancer.served) >= 20  # each instance served half of the session's requests
    assert len(upstream.requests) == 20


async def test_a_2025_06_18_session_is_served_by_the_instance_that_did_not_open_it(
    tmp_path: Path, upstream: Upstream, shared_store: str
) -> None:
    config = shared_config(tmp_path, upstream, shared_store)
    async with instances(config) as both, httpx2.AsyncClient(transport=RoundRobin(both)) as http:
        session = await opened(http, KEYS["alice"])
        for number in range(1, 21):
            listed = await rpc(http, call(number, "tools/list", {}), KEYS["alice"], session)
            assert listed.status_code == 200, listed.text
            assert "Session not found" not in listed.text
            called = await rpc(
                http,
                call(number, "tools/call", {"name": "getProduct", "arguments": {"id": "p1"}}),
                KEYS["alice"],
                session,
            )
            assert called.json()["result"]["structuredContent"] == {"id": "p1", "name": "Mug"}
    async with open_store(shared_store) as store:
        kept = await store.get_session(hashlib.sha256(session.encode()).hexdigest(), 0)
        assert await store.get_session(session, 0) is None  # the store never holds the id itself
    assert kept is not None and kept.owner == "alice" and kept.kind == "mcp:shop"
    assert kept.data["protocol_version"] == PROTOCOL
    assert kept.data["client_info"] == {"name": "raw", "version": "0"}


async def test_another_clients_key_cannot_use_a_session_on_any_instance(
    tmp_path: Path, upstream: Upstream, shared_store: str
) -> None:
    config = shared_config(tmp_path, upstream, shared_store)
    async with clients_of_two(config) as (first, second):
        session = await opened(first, KEYS["alice"])
        for http in (second, first, second):  # taken up nowhere for bob, held or not
            stolen = await rpc(http, call(1, "tools/list", {}), KEYS["bob"], session)
            assert stolen.status_code == 404, stolen.text
            assert stolen.json()["error"]["message"] == "Session not found"
        own = await rpc(second, call(2, "tools/list", {}), KEYS["alice"], session)
        assert own.status_code == 200 and "result" in own.json()


async def test_a_delete_on_one_instance_ends_the_session_on_the_other(
    tmp_path: Path, upstream: Upstream, shared_store: str
) -> None:
    config = shared_config(tmp_path, upstream, shared_store)
    async with clients_of_two(config) as (first, second):
        session = await opened(first, KEYS["alice"])
        served = await rpc(second, call(1, "tools/list", {}), KEYS["alice"], session)
        assert served.status_code == 200
        headers = {**ACCEPT, "Authorization": f"Bearer {KEYS['alice']}", "Mcp-Session-Id": session}
        headers["MCP-Protocol-Version"] = PROTOCOL
        ended = await second.delete(URL, headers=headers)
        assert ended.status_code == 200, ended.text
        for http in (first, second):
            gone = await rpc(http, call(2, "tools/list", {}), KEYS["alice"], session)
            assert gone.status_code == 404, gone.text


async def test_the_session_cap_counts_a_clients_sessions_on_every_instance(
    tmp_path: Path, upstream: Upstream, shared_store: str
) -> None:
    config = shared_config(tmp_path, upstream, shared_store, extra="limits: {sessions_per_client: 2}\n")
    async with clients_of_two(config) as (first, second):
        await opened(first, KEYS["alice"])
        await opened(second, KEYS["alice"])
        params = {
            "protocolVersion": PROTOCOL,
            "capabilities": {},
            "clientInfo": {"name": "r", "version": "0"},
        }
        refused = await rpc(first, call(0, "initialize", params), KEYS["alice"])
        assert refused.status_code == 429
        assert refused.json()["error"]["code"] == "session-limit"
        await opened(second, KEYS["bob"])  # another client has its own places


async def test_a_store_that_cannot_be_reached_is_a_503_store_unavailable(
    tmp_path: Path, upstream: Upstream
) -> None:
    # sessions kept in a store nobody listens on (a closed port): every session step needs it
    closed = "postgresql://postgres@127.0.0.1:9/test?timeout=1"
    config = shared_config(tmp_path, upstream, closed, extra="sessions: store\n")
    async with instances(config, 1) as (one,), httpx2.AsyncClient(transport=one) as http:
        params = {
            "protocolVersion": PROTOCOL,
            "capabilities": {},
            "clientInfo": {"name": "r", "version": "0"},
        }
        refused = await rpc(http, call(0, "initialize", params), KEYS["alice"])
        assert refused.status_code == 503, refused.text
        assert refused.json()["error"]["data"]["code"] == "store-unavailable"
        assert refused.headers["Retry-After"] == "5"
        assert refused.json()["error"]["data"] == {"code": "store-unavailable"}  # no store name to a client
        later = await rpc(http, call(1, "tools/list", {}), KEYS["alice"], "f" * 32)
        assert later.status_code == 503 and later.json()["error"]["data"]["code"] == "store-unavailable"


async def test_a_2026_era_call_that_needs_no_store_is_served_while_the_session_store_is_down(
    tmp_path: Path, upstream: Upstream
) -> None:
    """Only an `initialize` opens a session, so only it counts the client's sessions in the store: a
    stateless call (it names its method in `Mcp-Method`) goes on (before: 503, its cap counted)."""
    closed = "postgresql://postgres@127.0.0.1:9/test?timeout=1"
    config = shared_config(tmp_path, upstream, closed, extra="sessions: store\n")
    async with (
        instances(config, 1) as (one,),
        http_client(URL, mode="2026-07-28", key=KEYS["alice"], transport=one) as client,
    ):
        result = await client.call_tool("getProduct", {"id": "p1"})
    assert result.is_error is not True, result
    assert result.structured_content == {"id": "p1", "name": "Mug"}


async def test_the_2026_era_needs_no_session_and_alternates_freely(
    tmp_path: Path, upstream: Upstream, shared_store: str
) -> None:
    config = shared_config(tmp_path, upstream, shared_store)
    async with instances(config) as both:
        balancer = RoundRobin(both)
        async with http_client(URL, mode="2026-07-28", key=KEYS["alice"], transport=balancer) as client:
            for _ in range(4):
                result = await client.call_tool("getProduct", {"id": "p1"})
                assert isinstance(result, types.CallToolResult)
                assert result.structured_content == {"id": "p1", "name": "Mug"}
    assert min(balancer.served) >= 2


async def test_many_requests_at_once_take_a_session_up_once_and_are_all_served(
    tmp_path: Path, upstream: Upstream, shared_store: str
) -> None:
    config = shared_config(tmp_path, upstream, shared_store)
    async with clients_of_two(config) as (first, second):
        session = await opened(first, KEYS["alice"])
        answers = await asyncio.gather(
            *(rpc(second, call(n, "tools/list", {}), KEYS["alice"], session) for n in range(10))
        )
    assert [answer.status_code for answer in answers] == [200] * 10
    assert all("result" in answer.json() for answer in answers)


class SpreadOver(httpx2.AsyncBaseTransport):
    """A round-robin balancer in front of real servers: each request goes to the next base URL in turn
    (an open GET stream stays where it went)."""

    def __init__(self, bases: list[str]) -> None:
        self.bases = [httpx2.URL(base) for base in bases]
        self.inner = httpx2.AsyncHTTPTransport()
        self._turn = itertools.count()
        self.served = [0] * len(bases)

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        turn = next(self._turn) % len(self.bases)
        self.served[turn] += 1
        base = self.bases[turn]
        request.url = request.url.copy_with(host=base.host, port=base.port)
        request.headers["Host"] = f"{base.host}:{base.port}"
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


async def test_two_serve_processes_behind_a_round_robin_serve_one_sdk_session_with_its_get_stream(
    tmp_path: Path, upstream: Upstream, shared_store: str
) -> None:
    config = shared_config(tmp_path, upstream, shared_store)
    async with gateway_processes(config, 2) as (one, two):
        assert one.base and two.base, one.stderr + two.stderr
        balancer = SpreadOver([one.base, two.base])
        async with http_client(f"{one.base}/mcp", key=KEYS["alice"], transport=balancer) as client:
            for _ in range(20):
                listed = await client.list_tools()
                result = await client.call_tool("getProduct", {"id": "p1"})
                assert listed.tools and result.structured_content == {"id": "p1", "name": "Mug"}, result
        assert min(balancer.served) >= 20
    assert len(upstream.requests) == 20
    assert not any("Session not found" in line for line in one.stderr + two.stderr)


async def test_a_huge_handshake_is_kept_as_the_names_it_declares(
    tmp_path: Path, upstream: Upstream, shared_store: str
) -> None:
    config = shared_config(tmp_path, upstream, shared_store)
    capabilities = {"elicitation": {}, "experimental": {"blob": {"x": "y" * 40_000}}}
    params = {
        "protocolVersion": PROTOCOL,
        "capabilities": capabilities,
        "clientInfo": {"name": "big", "version": "0"},
    }
    async with clients_of_two(config) as (first, second):
        answer = await rpc(first, call(0, "initialize", params), KEYS["alice"])
        session = answer.headers["mcp-session-id"]
        served = await rpc(second, call(1, "tools/list", {}), KEYS["alice"], session)
        assert served.status_code == 200 and "result" in served.json()
    async with open_store(shared_store) as store:
        kept = await store.get_session(hashlib.sha256(session.encode()).hexdigest(), 0)
    assert kept is not None
    assert kept.data["capabilities"] == {"elicitation": {}, "experimental": {}}
    assert kept.data["client_info"] == {"name": "big", "version": "0"}
