"""What tool access and rate limits cost a call (issue 19 items 3-4).

    .venv/bin/python bench/rates.py [--rounds N] [--backends sqlite,postgresql,redis]

1. The store step alone (`Store.count_call`), one call at a time, median and p99 µs, per backend on a
   fresh namespace (SQLite: a temporary file; PostgreSQL 127.0.0.1:5432/test: a new schema; Redis
   127.0.0.1:6379: a new key prefix; both dropped afterwards): one limit with room (a per-client
   limit), two limits with room (per client and per tool: one atomic step), and a call refused (its
   limit full); then 16 counters at once on one key (calls per second).
2. The call service's `admit` step alone (µs), in process: a client with no rules and no limit (what
   every call pays now), a client with tool rules (allow and deny by pattern), and a client with a
   per-client limit counted on SQLite and on Redis.
3. A whole `tools/call` (getProduct of the example shop) through the gateway's ASGI app in process
   (JSON-RPC on an open session, no SDK client) against a loopback upstream: no limit, a limit counted
   on SQLite, a limit counted on Redis (median and p99 ms), alternated twice.
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(1, str(Path(__file__).resolve().parents[1]))

import httpx
import psycopg
import redis
from tests.support.upstream import Upstream, json_response

from specbridge.access import key_sha256
from specbridge.call import Caller
from specbridge.config import config_from_data
from specbridge.document import load_document
from specbridge.files import Files
from specbridge.gateway import Gateway, http_app
from specbridge.service import CallRequest, CallService, Deadline, Ledger
from specbridge.service._access import admit
from specbridge.store import RateLimit, Store, open_store
from specbridge.tools import convert

ROOT = Path(__file__).resolve().parents[1]
SHOP = ROOT / "src" / "specbridge" / "examples" / "shop.openapi.yaml"
POSTGRES = "postgresql://postgres@127.0.0.1:5432/test"
REDIS = "redis://127.0.0.1:6379/0"
KEY = "sbk_bench-rates-key"
ROOM = 10_000_000  # calls per window: the limit never fills while it is timed
RULES = {"tools": {"shop": {"allow": ["get*", "list*"], "deny": ["*Admin*"]}}}


async def timed(rounds: int, work: Callable[[int], Awaitable[Any]]) -> list[float]:
    for number in range(min(50, rounds)):  # warm: connections, statements, scripts
        await work(-1 - number)
    samples = []
    for number in range(rounds):
        started = time.perf_counter()
        await work(number)
        samples.append(time.perf_counter() - started)
    return samples


def row(name: str, samples: list[float], unit: float = 1e6) -> str:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return f"| {name} | {statistics.median(samples) * unit:,.1f} | {p99 * unit:,.1f} |"


async def store_steps(urls: dict[str, str], rounds: int) -> None:
    print("\n| `count_call` (µs) | median | p99 |\n|---|---:|---:|")
    for backend, url in urls.items():
        async with open_store(url) as store:
            one = [RateLimit("bench:client", ROOM, 60.0)]
            two = [*one, RateLimit("bench:client:tool", ROOM, 3600.0)]
            full = [RateLimit("bench:full", 1, 3600.0)]
            await store.count_call(full, time.time())
            for name, limits in (("one limit, room", one), ("two limits, room", two), ("refused", full)):
                samples = await timed(rounds, lambda _, limits=limits: store.count_call(limits, time.time()))
                print(row(f"{backend}: {name}", samples))
            shared = [RateLimit("bench:shared", ROOM, 60.0)]

            async def worker(store: Store = store, shared: list[RateLimit] = shared) -> None:
                for _ in range(rounds // 16):
                    await store.count_call(shared, time.time())

            started = time.perf_counter()
            await asyncio.gather(*(worker() for _ in range(16)))
            per_second = (rounds // 16) * 16 / (time.perf_counter() - started)
            print(f"| {backend}: 16 at once on one key (calls/s) | {per_second:,.0f} | |")


def shop_config(upstream: Upstream, store: str, **top: Any) -> Any:
    return config_from_data(
        {
            "apis": {
                "shop": {"spec": str(SHOP), "base_url": upstream.url, "egress": {"allow": [upstream.address]}}
            },
            "clients": {
                "bot": {"key_sha256": key_sha256(KEY), "apis": ["shop"], **top.pop("client", {})},
            },
            "store": store,
            **top,
        },
        source="bench",
    )


async def admit_case(config: Any, rounds: int) -> list[float]:
    """`admit` for one call of getProduct by the client `bot`, timed."""
    api = config.apis["shop"]
    toolset = convert(load_document(api.spec))
    caller = Caller(api, toolset, check_workers=False)
    ledger = Ledger(lambda: config)
    files = Files(ledger.open, lambda: config.files)
    service = CallService(ledger, files, lambda: config, deadline=60)
    tool = toolset.get("getProduct")
    assert tool is not None
    request = CallRequest(api, caller, tool, config.clients["bot"], {"id": "p"}, Deadline.after(60))

    async def once(_: int) -> None:
        refused = await admit(request, config.rate_limits, service._store, time.time())
        assert refused is None, refused

    try:
        return await timed(rounds, once)
    finally:
        await service.aclose()
        await caller.aclose()
        await ledger.aclose()


async def admit_step(upstream: Upstream, urls: dict[str, str], rounds: int) -> None:
    print("\n| `admit` for one call (µs) | median | p99 |\n|---|---:|---:|")
    cases: list[tuple[str, str, dict[str, Any]]] = [
        ("no rules, no limit", urls["sqlite"], {}),
        ("tool rules (allow get*, list*; deny *Admin*)", urls["sqlite"], {"client": RULES}),
    ]
    cases += [
        (f"a per-client limit, {backend}", urls[backend], {"limits": {"per_client": f"{ROOM}/minute"}})
        for backend in ("sqlite", "redis")
        if backend in urls
    ]
    for name, store, top in cases:
        print(row(name, await admit_case(shop_config(upstream, store, **top), rounds)))


async def call_case(config: Any, rounds: int) -> list[float]:
    """A whole tools/call through the gateway's ASGI app on an open session, timed."""
    app = http_app(Gateway(config))
    accept = {"Accept": "application/json, text/event-stream", "Authorization": f"Bearer {KEY}"}
    hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "b", "version": "1"}}
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://127.0.0.1") as http,
    ):
        start = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello}
        opened = await http.post("/shop/mcp", headers=accept, json=start)
        session = opened.headers["mcp-session-id"]
        headers = {**accept, "Mcp-Session-Id": session, "Mcp-Protocol-Version": "2025-06-18"}
        ready = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        await http.post("/shop/mcp", headers=headers, json=ready)
        call = {"name": "getProduct", "arguments": {"id": "p-mug"}}

        async def one(number: int) -> None:
            body = {"jsonrpc": "2.0", "id": number + 100, "method": "tools/call", "params": call}
            response = await http.post("/shop/mcp", headers=headers, json=body)
            assert b"p-mug" in response.content, response.content[:300]

        return await timed(rounds, one)


async def whole_calls(upstream: Upstream, urls: dict[str, str], rounds: int) -> None:
    upstream.route("/products/p-mug", json_response({"id": "p-mug", "name": "Mug"}))
    limit = {"limits": {"per_client": f"{ROOM}/minute"}}
    cases: list[tuple[str, str, dict[str, Any]]] = [("no limit", urls["sqlite"], {})]
    cases += [
        (f"a per-client limit, {name}", urls[name], limit) for name in ("sqlite", "redis") if name in urls
    ]
    print("\n| a whole tools/call through the ASGI app (ms) | median | p99 |\n|---|---:|---:|")
    for run in (1, 2):
        for name, store, top in cases:
            samples = await call_case(shop_config(upstream, store, **dict(top)), rounds)
            print(row(f"run {run}: {name}", samples, unit=1e3))


async def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=2000)
    parser.add_argument("--backends", default="sqlite,postgresql,redis")
    options = parser.parse_args()
    namespace = f"bench_{secrets.token_hex(4)}"
    with tempfile.TemporaryDirectory() as folder, Upstream() as upstream:
        every = {
            "sqlite": f"sqlite:///{folder}/state.db",
            "postgresql": f"{POSTGRES}?namespace={namespace}",
            "redis": f"{REDIS}?namespace={namespace}",
        }
        urls = {backend: every[backend] for backend in options.backends.split(",")}
        urls.setdefault("sqlite", every["sqlite"])
        try:
            await store_steps(urls, options.rounds)
            await admit_step(upstream, urls, options.rounds)
            await whole_calls(upstream, urls, max(300, options.rounds // 4))
        finally:
            with psycopg.connect(POSTGRES, autocommit=True) as conn:
                conn.execute(f'DROP SCHEMA IF EXISTS "{namespace}" CASCADE'.encode())
            with redis.Redis.from_url(REDIS) as client:
                keys = list(client.scan_iter(match=f"{namespace}:*", count=1000))
                if keys:
                    client.delete(*keys)


if __name__ == "__main__":
    asyncio.run(main())
