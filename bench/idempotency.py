"""What an `idempotency_key` adds to one call, on each store backend.

    .venv/bin/python bench/idempotency.py [--calls N]

The gateway's call service (`CallService.call`: plan, check, request built, the key's claim, the send,
the result stored) for `createProduct` of the example shop, through a `Caller` whose upstream is an
httpx `MockTransport` answering at once, so the figures are the call service's own cost and nothing of
a network. Per backend, on a fresh namespace (SQLite: a temporary file; PostgreSQL
127.0.0.1:5432/test: a new schema; Redis 127.0.0.1:6379: a new key prefix; both dropped afterwards),
one call at a time, median and p99 microseconds of:

- no key: the same path without a key (no store step);
- miss: a new key each call (claim, send, complete);
- hit: a key used before with the same arguments (one claim that finds the stored result).
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import httpx
import psycopg
import redis

from specbridge.call import Caller, CallResult
from specbridge.config import config_from_data
from specbridge.document import load_document
from specbridge.files import Files
from specbridge.service import CallRequest, CallService, Deadline, Ledger
from specbridge.tools import convert

ROOT = Path(__file__).resolve().parents[1]
SHOP = ROOT / "src" / "specbridge" / "examples" / "shop.openapi.yaml"
POSTGRES = "postgresql://postgres@127.0.0.1:5432/test"
REDIS = "redis://127.0.0.1:6379/0"
ARGUMENTS = {"name": "Mug", "price": {"amount": 1250, "currency": "EUR"}}
ANSWER = {"id": "p-1", **ARGUMENTS}


def upstream(request: httpx.Request) -> httpx.Response:
    return httpx.Response(201, json=ANSWER)


async def public(host: str, port: int) -> list[str]:
    return ["93.184.215.14"]  # shop.example, as a public address would resolve


def figures(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered) * 1e6, ordered[int(len(ordered) * 0.99) - 1] * 1e6


async def bench(store_url: str, calls: int) -> dict[str, tuple[float, float]]:
    config = config_from_data(
        {"apis": {"shop": {"spec": str(SHOP), "base_url": "https://shop.example"}}, "store": store_url},
        source="bench",
        base_dir=ROOT,
    )
    api = config.apis["shop"]
    toolset = convert(load_document(str(SHOP)))
    tool = toolset.get("createProduct")
    assert tool is not None
    caller = Caller(
        api, toolset, transport=httpx.MockTransport(upstream), resolve=public, check_workers=False
    )
    ledger = Ledger(lambda: config)
    files = Files(ledger.open, lambda: config.files)
    service = CallService(ledger, files, lambda: config, deadline=60.0)

    async def call(arguments: dict[str, Any]) -> Any:
        return await service.call(CallRequest(api, caller, tool, None, arguments, Deadline.after(60)))

    out: dict[str, tuple[float, float]] = {}
    try:
        await call({**ARGUMENTS, "idempotency_key": "warm"})

        async def timed(make: Any) -> list[float]:
            samples = []
            for n in range(calls):
                arguments = make(n)
                started = time.perf_counter()
                result = await call(arguments)
                samples.append(time.perf_counter() - started)
                assert isinstance(result, CallResult) and result.structured == ANSWER, result
            return samples

        out["no key"] = figures(await timed(lambda n: dict(ARGUMENTS)))
        out["miss (new key)"] = figures(await timed(lambda n: {**ARGUMENTS, "idempotency_key": f"k-{n}"}))
        out["hit (stored)"] = figures(await timed(lambda n: {**ARGUMENTS, "idempotency_key": "k-0"}))
    finally:
        await service.aclose()
        await caller.aclose()
        await ledger.aclose()
    return out


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=500)
    calls = parser.parse_args().calls
    namespace = f"bench_{secrets.token_hex(4)}"
    results: dict[str, dict[str, tuple[float, float]]] = {}
    with tempfile.TemporaryDirectory() as folder:
        results["SQLite"] = await bench(f"sqlite:///{folder}/state.db", calls)
    try:
        results["PostgreSQL"] = await bench(f"{POSTGRES}?namespace={namespace}", calls)
    finally:
        with psycopg.connect(POSTGRES, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{namespace}" CASCADE'.encode())
    try:
        results["Redis"] = await bench(f"{REDIS}?namespace={namespace}", calls)
    finally:
        client = redis.Redis.from_url(REDIS)
        keys = list(client.scan_iter(match=f"{namespace}:*", count=1000))
        if keys:
            client.delete(*keys)
        client.close()
    print(f"{calls} calls each, one at a time; median / p99 microseconds\n")
    print("| call | " + " | ".join(results) + " |")
    print("|---|" + "---:|" * len(results))
    for row in next(iter(results.values())):
        cells = [f"{results[name][row][0]:,.0f} / {results[name][row][1]:,.0f}" for name in results]
        print(f"| {row} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    asyncio.run(main())
