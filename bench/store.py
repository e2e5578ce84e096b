"""Approvals created and answered per second on each store backend (and what one store step costs).

    .venv/bin/python bench/store.py [--approvals N] [--concurrency C]

Per backend, on a fresh namespace (SQLite: a temporary file; PostgreSQL 127.0.0.1:5432/test: a new
schema; Redis 127.0.0.1:6379: a new key prefix; both dropped afterwards):

1. request + approve, one after another: approvals per second;
2. the whole life of an approved call's record as the call service moves it (request, approve, the
   call's attach and wait, the execute-once claim, the result kept and settled), one after another,
   and C at a time (distinct calls): approvals per second;
3. claim + complete of an execute-once key: per second;
4. one read (`get_approval`): median microseconds; for SQLite also the same SELECT made directly on the
   event loop's thread, which is the cost of the worker-thread hop.
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import sqlite3
import statistics
import sys
import tempfile
import time
from contextlib import closing
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import psycopg
import redis

from specbridge.approvals import Approvals
from specbridge.config import ApprovalsConfig
from specbridge.store import Store, open_store
from specbridge.store._sqlite import SqliteStore

POSTGRES = "postgresql://postgres@127.0.0.1:5432/test"
REDIS = "redis://127.0.0.1:6379/0"
RESULT = {"content": [{"type": "text", "text": "refunded"}], "isError": False}


async def bench(store: Store, approvals_count: int, concurrency: int) -> dict[str, float]:
    approvals = Approvals(store, ApprovalsConfig(wait=5))
    figures: dict[str, float] = {}

    started = time.perf_counter()
    for n in range(approvals_count):
        record = await approvals.request("shop", "refundOrder", "agent-1", {"orderId": f"a-{n}"}, {})
        await approvals.approve(record.id, by="bench")
    figures["request+approve /s"] = approvals_count / (time.perf_counter() - started)

    async def whole_life(tag: str) -> None:
        arguments = {"orderId": tag}
        record = await approvals.request("shop", "refundOrder", "agent-1", arguments, {}, fingerprint=tag)
        await approvals.approve(record.id, by="bench")
        attached = await approvals.request("shop", "refundOrder", "agent-1", arguments, {}, fingerprint=tag)
        approved = await approvals.wait(attached.id, 5)
        claimed = await approvals.claim(approved)
        assert claimed is not None
        finished = await approvals.finish(claimed, RESULT)
        assert finished is not None and finished.result == RESULT

    started = time.perf_counter()
    for n in range(approvals_count):
        await whole_life(f"b-{n}")
    figures["whole life /s"] = approvals_count / (time.perf_counter() - started)

    started = time.perf_counter()
    pending = [f"c-{n}" for n in range(approvals_count)]

    async def worker() -> None:
        while pending:
            await whole_life(pending.pop())

    await asyncio.gather(*(worker() for _ in range(concurrency)))
    figures[f"whole life x{concurrency} /s"] = approvals_count / (time.perf_counter() - started)

    started = time.perf_counter()
    for n in range(approvals_count):
        now = time.time()
        await store.claim(f"key-{n}", "bench", "args", 60, 3600, now)
        await store.complete(f"key-{n}", "bench", RESULT, now)
    figures["claim+complete /s"] = approvals_count / (time.perf_counter() - started)

    some = (await store.list_approvals(limit=1))[0].id
    samples = []
    for _ in range(approvals_count):
        started = time.perf_counter()
        await store.get_approval(some)
        samples.append(time.perf_counter() - started)
    figures["read µs (median)"] = statistics.median(samples) * 1e6
    if isinstance(store, SqliteStore):
        samples = []
        with closing(sqlite3.connect(store.path)) as db:
            for _ in range(approvals_count):
                started = time.perf_counter()
                db.execute("SELECT * FROM approvals WHERE id = ?", (some,)).fetchone()
                samples.append(time.perf_counter() - started)
        figures["same read, no thread hop µs"] = statistics.median(samples) * 1e6
    return figures


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--approvals", type=int, default=500)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--backends", default="sqlite,postgresql,redis")
    options = parser.parse_args()
    namespace = f"bench_{secrets.token_hex(4)}"
    with tempfile.TemporaryDirectory() as folder:
        urls = {
            "sqlite": f"sqlite:///{folder}/state.db",
            "postgresql": f"{POSTGRES}?namespace={namespace}",
            "redis": f"{REDIS}?namespace={namespace}",
        }
        try:
            for backend in options.backends.split(","):
                url = urls[backend]
                async with open_store(url) as store:
                    figures = await bench(store, options.approvals, options.concurrency)
                print(f"{backend:<11}" + "  ".join(f"{name} {value:,.0f}" for name, value in figures.items()))
        finally:
            with psycopg.connect(POSTGRES, autocommit=True) as conn:
                conn.execute(f'DROP SCHEMA IF EXISTS "{namespace}" CASCADE'.encode())
            with redis.Redis.from_url(REDIS) as client:
                keys = list(client.scan_iter(match=f"{namespace}:*", count=1000))
                if keys:
                    client.delete(*keys)


if __name__ == "__main__":
    asyncio.run(main())
