"""A client cannot pile up sessions: past the cap per API, `initialize` is refused with 429
`session-limit`; ending a session (DELETE) frees its place; other clients are not affected."""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import httpx2
import pytest

from specbridge.config import load_config
from specbridge.gateway import Gateway, bind, serve_http
from specbridge.gateway._sessions import SessionTable
from tests.gateway._rawrpc import RawSession
from tests.support.gateway import write_config
from tests.support.upstream import Upstream

KEYS = {"alice": "alice-key-0123456789", "bob": "bob-key-0123456789"}


@pytest.fixture
def config(tmp_path: Path, upstream: Upstream) -> Path:
    clients = "clients:\n" + "".join(
        f"  {name}:\n    key_sha256: {hashlib.sha256(key.encode()).hexdigest()}\n    apis: [shop]\n"
        for name, key in KEYS.items()
    )
    return write_config(tmp_path, upstream, clients=clients)


@contextlib.asynccontextmanager
async def capped_gateway(config: Path, cap: int) -> AsyncIterator[str]:
    gateway = Gateway(load_config(config), config_path=str(config))
    sock = bind("127.0.0.1", 0)
    stop, ready, base = anyio.Event(), anyio.Event(), []

    def on_ready(url: str) -> None:
        base.append(url)
        ready.set()

    try:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(
                lambda: serve_http(gateway, sock, on_ready=on_ready, stop=stop, max_sessions_per_client=cap)
            )
            await ready.wait()
            try:
                yield base[0] + "/mcp"
            finally:
                stop.set()
    finally:
        sock.close()


async def test_a_client_past_its_session_cap_is_refused_until_it_ends_one(config: Path) -> None:
    with anyio.fail_after(60):
        async with capped_gateway(config, cap=2) as url, contextlib.AsyncExitStack() as stack:
            first = await stack.enter_async_context(RawSession(url, key=KEYS["alice"]))
            await stack.enter_async_context(RawSession(url, key=KEYS["alice"]))
            third = RawSession(url, key=KEYS["alice"])
            refused = await third.post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}})
            await third.__aexit__(None, None, None)
            assert refused.status_code == 429
            assert refused.json()["error"]["code"] == "session-limit"
            assert "2 open sessions" in refused.json()["error"]["message"]
            assert refused.headers["Retry-After"] == "60"
            # another client has its own places
            await stack.enter_async_context(RawSession(url, key=KEYS["bob"]))
            # ending one session frees its place
            async with httpx2.AsyncClient() as http:
                ended = await http.delete(url, headers=first.headers)
            assert ended.status_code == 200
            again = await stack.enter_async_context(RawSession(url, key=KEYS["alice"]))
            status, body = await again.call("tools/list", {})
            assert status == 200 and "result" in body


def test_a_session_idle_past_the_timeout_no_longer_counts() -> None:
    now = [0.0]
    table = SessionTable(cap=1, idle_timeout=10, clock=lambda: now[0])
    table._owner["s1"] = "alice"
    table._seen["s1"] = 0.0
    assert table.full("alice") and not table.full("bob")
    now[0] = 11.0
    assert not table.full("alice")
