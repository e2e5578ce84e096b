"""What an OAuth token toward the API costs a call (grants/), next to a static secret.

    .venv/bin/python bench/grants.py [--rounds N]

In process, one call's credential step at a time (median and p99 µs):
- a static bearer secret (`Caller.credential`: an `env:` secret read and checked, the path before);
- `Grants.credential` with the token in this process's memory (every call after the first);
- `Grants.credential` of a fresh gateway instance, the token in the store: one store read and one
  AES-GCM open (a restart, or a second instance), on SQLite, PostgreSQL and Redis (skipped when not
  running);
- sealing and opening one token record (AES-256-GCM) alone.
The token is put in the store sealed, as a fetch would leave it: no token endpoint is asked.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from specbridge.call import Caller
from specbridge.config import ApiConfig, config_from_data
from specbridge.document import load_document
from specbridge.grants import Grants
from specbridge.grants._seal import Sealer
from specbridge.grants._slots import shared_slot
from specbridge.grants._tokens import Tokens
from specbridge.store import Store, open_store
from specbridge.tools import convert

ROOT = Path(__file__).resolve().parents[1]
SHOP = ROOT / "src" / "specbridge" / "examples" / "shop.openapi.yaml"
KEY = "bench-store-key-0123456789abcdefghijklmnopqrstu"
TOKEN = "eyJ" + "x" * 900  # about the size of glewlwyd's RS256 access tokens
STORES = {
    "postgresql": os.environ.get("SPECBRIDGE_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test"),
    "redis": os.environ.get("SPECBRIDGE_TEST_REDIS", "redis://127.0.0.1:6379/0"),
}


def api(auth: dict[str, Any]) -> ApiConfig:
    data = {
        "apis": {"shop": {"spec": str(SHOP), "base_url": "https://api.example.com", "auth": auth}},
        "store_key": "env:BENCH_STORE_KEY",
    }
    return config_from_data(data, source="bench.yaml").apis["shop"]


def shown(name: str, samples: list[float]) -> None:
    samples.sort()
    median = statistics.median(samples) * 1e6
    p99 = samples[int(len(samples) * 0.99) - 1] * 1e6
    print(f"{name:<58} {median:8.1f} µs median {p99:8.1f} µs p99")


async def timed(name: str, rounds: int, step: Callable[[], Awaitable[Any]]) -> None:
    await step()
    samples = []
    for _ in range(rounds):
        started = time.perf_counter()
        await step()
        samples.append(time.perf_counter() - started)
    shown(name, samples)


def reachable(url: str) -> bool:
    parts = urlsplit(url)
    try:
        socket.create_connection((parts.hostname or "127.0.0.1", parts.port or 0), timeout=2).close()
    except OSError:
        return False
    return True


async def main(rounds: int) -> None:
    os.environ["BENCH_STORE_KEY"] = KEY
    os.environ["BENCH_STATIC"] = "static-secret-token-value"
    static = api({"type": "bearer", "secret": "env:BENCH_STATIC"})
    caller = Caller(static, convert(load_document(str(SHOP))), check_workers=False)

    async def static_step() -> Any:
        return caller.credential(None)

    await timed("static bearer secret (Caller.credential)", rounds, static_step)
    grant = {"type": "oauth2_client_credentials", "token_url": "https://auth.example.com/token",
             "client_id": "bench", "client_secret": "env:BENCH_STATIC"}  # fmt: skip
    oauth = api(grant)
    slot = shared_slot(oauth)
    now = time.time()
    record = Tokens(TOKEN, now, now + 3600).data()
    sealer = Sealer(KEY)
    samples = []
    for _ in range(rounds):
        started = time.perf_counter()
        sealer.open(slot, sealer.seal(slot, record))
        samples.append(time.perf_counter() - started)
    shown("seal + open one token record (AES-256-GCM)", samples)
    folder = Path(tempfile.mkdtemp())
    urls = {"sqlite": f"sqlite:///{folder / 'state.db'}"}
    urls |= {
        name: f"{url}?namespace=bench_grants_{os.getpid()}" for name, url in STORES.items() if reachable(url)
    }
    for name, url in urls.items():
        store = open_store(url)
        await store.start()
        try:
            await store.put_sealed(slot, sealer.seal(slot, record), now + 3600, now)

            async def opened(store: Store = store) -> Store:
                return store

            warm = Grants(opened)

            async def memory(warm: Grants = warm) -> Any:
                return await warm.credential(oauth, "client-1")

            if name == "sqlite":
                await timed("Grants.credential, the token in memory", rounds, memory)

            async def fresh(opened: Callable[[], Awaitable[Store]] = opened) -> Any:
                grants = Grants(opened)
                return await grants.credential(oauth, "client-1")  # no aclose: nothing was opened

            await timed(f"Grants.credential, a fresh instance, the token in {name}", rounds, fresh)
            await warm.aclose()
        finally:
            await store.put_sealed(slot, b"-", now - 1, now)  # expired: forgotten
            await store.close()
    await caller.aclose()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2000)
    asyncio.run(main(parser.parse_args().rounds))
