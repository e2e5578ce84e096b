"""Upload throughput of `POST /files`, on each store backend.

    .venv/bin/python bench/files.py [--size-mb 5] [--uploads 8]

A gateway serving the example shop over HTTP on 127.0.0.1 (a free port), its store on a fresh namespace
(SQLite: a temporary file; PostgreSQL 127.0.0.1:5432/test: a new schema; Redis 127.0.0.1:6379: a new key
prefix; both dropped afterwards). One client (httpx) uploads `--uploads` files of `--size-mb` MB one after
the other, then reads each back with `GET /files/{id}`; the figures are MB/s (10^6 bytes) over the whole
exchange, and the store's own `put_file` alone for comparison.
"""

from __future__ import annotations

import argparse
import os
import secrets
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import anyio
import httpx
import psycopg
import redis

from specbridge.config import config_from_data
from specbridge.gateway import Gateway, bind, serve_http
from specbridge.store import StoredFile, open_store

ROOT = Path(__file__).resolve().parents[1]
SHOP = ROOT / "src" / "specbridge" / "examples" / "shop.openapi.yaml"
POSTGRES = "postgresql://postgres@127.0.0.1:5432/test"
REDIS = "redis://127.0.0.1:6379/0"


async def bench(store_url: str, size: int, uploads: int) -> tuple[float, float, float]:
    config = config_from_data(
        {
            "apis": {"shop": {"spec": str(SHOP), "base_url": "https://shop.example"}},
            "store": store_url,
            "files": {"max_bytes": size + 1},
        },
        source="bench",
        base_dir=ROOT,
    )
    data = os.urandom(size)
    gateway = Gateway(config)
    sock = bind("127.0.0.1", 0)
    ready, stop = anyio.Event(), anyio.Event()
    base: list[str] = []

    def on_ready(url: str) -> None:
        base.append(url)
        ready.set()

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(lambda: serve_http(gateway, sock, on_ready=on_ready, stop=stop))
        await ready.wait()
        async with httpx.AsyncClient(timeout=120) as http:
            first = await http.post(f"{base[0]}/files", content=data)  # opens the store; not timed
            first.raise_for_status()
            started = time.perf_counter()
            ids = []
            for _ in range(uploads):
                answer = await http.post(f"{base[0]}/files", content=data)
                answer.raise_for_status()
                ids.append(answer.json()["file_id"])
            up = size * uploads / (time.perf_counter() - started) / 1e6
            started = time.perf_counter()
            for file_id in ids:
                back = await http.get(f"{base[0]}/files/{file_id}")
                assert back.content == data
            down = size * uploads / (time.perf_counter() - started) / 1e6
        stop.set()
    sock.close()
    async with open_store(store_url) as store:
        started = time.perf_counter()
        for _ in range(uploads):
            now = time.time()
            record = StoredFile(
                secrets.token_hex(16), "bench", "application/octet-stream", None, size, now, now + 60
            )
            await store.put_file(record, data)
        direct = size * uploads / (time.perf_counter() - started) / 1e6
    return up, down, direct


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size-mb", type=float, default=5)
    parser.add_argument("--uploads", type=int, default=8)
    options = parser.parse_args()
    size = int(options.size_mb * 1e6)
    namespace = f"bench_files_{secrets.token_hex(4)}"
    print(f"{options.uploads} uploads of {size:,} bytes, one at a time")
    print(f"{'backend':<12}{'POST /files MB/s':>18}{'GET MB/s':>10}{'put_file MB/s':>15}")
    with tempfile.TemporaryDirectory() as folder:
        urls = {
            "sqlite": f"sqlite:///{folder}/state.db",
            "postgresql": f"{POSTGRES}?namespace={namespace}",
            "redis": f"{REDIS}?namespace={namespace}",
        }
        try:
            for name, url in urls.items():
                up, down, direct = anyio.run(bench, url, size, options.uploads)
                print(f"{name:<12}{up:>18.1f}{down:>10.1f}{direct:>15.1f}")
        finally:
            with psycopg.connect(POSTGRES, autocommit=True) as conn:
                conn.execute(f'DROP SCHEMA IF EXISTS "{namespace}" CASCADE'.encode())
            client = redis.Redis.from_url(REDIS)
            keys = list(client.scan_iter(match=f"{namespace}:*", count=1000))
            if keys:
                client.delete(*keys)
            client.close()


if __name__ == "__main__":
    main()
