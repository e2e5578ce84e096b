"""What approvals cost through the real gateway, per store backend.

    .venv/bin/python bench/approvals.py [--calls N] [--cycles M] [--before SRC]

With `--before SRC` (the `src` folder of another checkout, e.g. `git archive 0de7628`), every gateway is
started twice, from this checkout and from SRC, and both are measured in the same rounds (each call and
each cycle alternating between them), so a before/after comparison shares the machine's noise.

`specbridge serve --transport http` runs in its own process per configuration; one SDK client (handshake
era) and a loopback upstream (a thread) run in this process.

1. A tool WITHOUT approval (`getProduct`): four gateways run at once, with no store configured and with
   each store configured (the config has a `requires_approval` tool and admins, so the gateway opens the
   store); N rounds, each one call to each gateway in turn (so the shared machine's noise falls on all
   alike): p50/p95 milliseconds per call. Tools without approval never touch the store, so the figures
   should not differ beyond noise.
2. The approval cycle, M times one after another (each a new call): the agent's call stores a pending
   approval (`approvals.wait: 0`, so it answers `approval-pending` at once), an admin approves it through
   the admin API, the agent calls again and gets the real result (the call sent once). Milliseconds per
   whole cycle (three HTTP round trips), p50/p95, per backend.
"""

from __future__ import annotations

import argparse
import os
import re
import secrets
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import AsyncExitStack, ExitStack, asynccontextmanager, contextmanager
from pathlib import Path

import anyio
import httpx
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.gateway import write_config  # noqa: E402
from tests.support.upstream import Upstream, json_response  # noqa: E402

from specbridge.access import key_sha256, new_key  # noqa: E402

POSTGRES = "postgresql://postgres@127.0.0.1:5432/test"
REDIS = "redis://127.0.0.1:6379/0"
ADMIN_KEY = new_key(admin=True)
SERVING = re.compile(r"serving \S+ at (http://[\d.]+:\d+)/")


def config_for(folder: Path, upstream: Upstream, store: str | None) -> Path:
    if store is None:
        return write_config(folder, upstream)
    path = write_config(folder, upstream, tools="tools:\n  createOrder: {requires_approval: true}\n")
    path.write_text(
        path.read_text(encoding="utf-8")
        + f"admins:\n  ops: {{key_sha256: {key_sha256(ADMIN_KEY)}}}\n"
        + f"approvals: {{wait: 0}}\nstore: '{store}'\n",
        encoding="utf-8",
    )
    return path


@contextmanager
def gateway(config: Path, source: str | None = None) -> Iterator[str]:
    """`specbridge serve` on `config`, from this checkout or (`source`) another's `src` folder."""
    command = [sys.executable, "-m", "specbridge", "serve", "--config", str(config), "--transport", "http"]
    env = {**os.environ, **({"PYTHONPATH": source} if source else {})}
    process = subprocess.Popen(
        [*command, "--port", "0"], stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, env=env
    )
    assert process.stderr is not None
    try:
        base = ""
        for raw in process.stderr:
            found = SERVING.search(raw.decode("utf-8", "replace"))
            if found:
                base = found.group(1)
                break
        if not base:
            raise SystemExit("the gateway did not start")
        stderr = process.stderr
        threading.Thread(target=lambda: [None for _ in stderr], daemon=True).start()  # keep the pipe drained
        yield base
    finally:
        process.kill()
        process.wait()


def percentiles(samples: list[float]) -> str:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    return f"p50 {statistics.median(ordered) * 1000:6.2f} ms  p95 {p95 * 1000:6.2f} ms"


@asynccontextmanager
async def mcp_client(base: str) -> AsyncIterator[Client]:
    async with (
        create_mcp_http_client() as http,
        Client(streamable_http_client(f"{base}/mcp", http_client=http), mode="legacy") as client,
    ):
        yield client


async def without_approval(bases: dict[str, str], calls: int) -> dict[str, str]:
    """Round-robin over the gateways, one call each per round, so the shared machine's noise falls on
    all of them alike."""
    async with AsyncExitStack() as stack:
        clients = {name: await stack.enter_async_context(mcp_client(base)) for name, base in bases.items()}
        samples: dict[str, list[float]] = {name: [] for name in clients}
        for round_ in range(calls + 20):  # the first 20 rounds warm up connections and caches
            for name, client in clients.items():
                started = time.perf_counter()
                result = await client.call_tool("getProduct", {"id": "p1"})
                if round_ >= 20:
                    samples[name].append(time.perf_counter() - started)
                assert not result.is_error
    return {name: percentiles(values) for name, values in samples.items()}


async def approval_cycles(bases: dict[str, str], cycles: int) -> dict[str, str]:
    """`cycles` cycles on each gateway of `bases`, taking turns cycle by cycle."""
    samples: dict[str, list[float]] = {name: [] for name in bases}
    async with AsyncExitStack() as stack:
        clients = {name: await stack.enter_async_context(mcp_client(base)) for name, base in bases.items()}
        admins = {
            name: await stack.enter_async_context(httpx.AsyncClient(base_url=base))
            for name, base in bases.items()
        }
        headers = {"Authorization": f"Bearer {ADMIN_KEY}"}
        for n in range(cycles):
            for name, client in clients.items():
                order = {"shopId": "s1", "product": "p1", "quantity": n + 1}
                started = time.perf_counter()
                pending = await client.call_tool("createOrder", order)
                text = pending.content[0].text  # type: ignore[union-attr]
                found = re.search(r"approval ([A-Za-z0-9_-]{20,})", text)
                assert found is not None, text
                answer = await admins[name].post(
                    f"/admin/approvals/{found.group(1)}/approve", headers=headers
                )
                assert answer.status_code == 200, answer.text
                done = await client.call_tool("createOrder", order)
                samples[name].append(time.perf_counter() - started)
                assert done.structured_content == {"id": "o1"}, done
    return {name: percentiles(values) for name, values in samples.items()}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=500)
    parser.add_argument("--cycles", type=int, default=100)
    parser.add_argument("--before", help="also run every gateway from this src folder, alternating")
    options = parser.parse_args()
    namespace = f"bench_{secrets.token_hex(4)}"
    # label -> (where specbridge comes from: None for this checkout, the store namespace)
    sources = {"": (None, namespace)}
    if options.before:
        sources[" (before)"] = (options.before, namespace + "_b")
    with Upstream() as upstream, tempfile.TemporaryDirectory() as folder, ExitStack() as running:
        upstream.route("/products/p1", json_response({"id": "p1", "name": "Mug"}))
        upstream.route("/shops/s1/orders", json_response({"id": "o1"}, status=201))
        bases: dict[str, str] = {}
        for label, (source, space) in sources.items():
            for name, store in stores_in(Path(folder), space):
                home = Path(folder) / f"{name}{label}".replace(" ", "-")
                home.mkdir()
                bases[name + label] = running.enter_context(
                    gateway(config_for(home, upstream, store), source)
                )
        print(f"{options.calls} calls of getProduct (no approval) per gateway, round-robin over all:")
        for name, figures in anyio.run(without_approval, bases, options.calls).items():
            print(f"  {name:>21}  {figures}")
        print(f"{options.cycles} approval cycles (call → pending, admin approves, call → result):")
        for name, store in stores_in(Path(folder), namespace):
            if store is not None:
                pair = {name + label: bases[name + label] for label in sources}
                for each, figures in anyio.run(approval_cycles, pair, options.cycles).items():
                    print(f"  {each:>21}  {figures}")
    for _, space in sources.values():
        drop(space)


def stores_in(folder: Path, namespace: str) -> list[tuple[str, str | None]]:
    """The four configurations: no store, and each backend on a namespace (a file) of its own."""
    return [
        ("no store", None),
        ("sqlite", f"sqlite:///{folder / f'{namespace}.db'}"),
        ("postgresql", f"{POSTGRES}?namespace={namespace}"),
        ("redis", f"{REDIS}?namespace={namespace}"),
    ]


def drop(namespace: str) -> None:
    import psycopg
    import redis

    with psycopg.connect(POSTGRES, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{namespace}" CASCADE'.encode())
    client = redis.Redis.from_url(REDIS)
    keys = list(client.scan_iter(match=f"{namespace}:*", count=1000))
    if keys:
        client.delete(*keys)
    client.close()


if __name__ == "__main__":
    main()
