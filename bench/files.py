"""Upload throughput of `POST /files`, on each store backend and with `files.folder`; and what passing a
file by `file_id` saves over the same bytes as base64 text in a tool call.

    .venv/bin/python bench/files.py [--size-mb 5] [--uploads 8] [--call-mb 1] [--calls 30]

1. Throughput. A gateway serving the example shop over HTTP on 127.0.0.1 (a free port), its store on a
   fresh namespace (SQLite: a temporary file; PostgreSQL 127.0.0.1:5432/test: a new schema; Redis
   127.0.0.1:6379: a new key prefix; both dropped afterwards), then the same with `files.folder` (the
   record in that store, the bytes in a temporary folder). One client (httpx) uploads `--uploads` files
   of `--size-mb` MB one after the other, then reads each back with `GET /files/{id}`; the figures are
   MB/s (10^6 bytes) over the whole exchange, and the store's own `put_file` alone for comparison.
2. A call carrying a file: `specbridge serve --transport http` in its own process (two: files in the
   store, SQLite; files in a folder), the official MCP SDK client, a loopback upstream with a raw-body
   upload operation (`putBlob`, checked to receive the exact bytes each time); p50/p95 ms of one call
   carrying `--call-mb` MB by `file_id`, by the `attachments` form, and as base64 text (with
   `limits.max_string` raised for it: the default refuses it, as the last line shows), round-robin over
   the six; and of the `POST /files` upload itself.
"""

from __future__ import annotations

import argparse
import base64
import os
import secrets
import statistics
import sys
import tempfile
import time
from contextlib import AsyncExitStack, ExitStack
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import anyio
import httpx
import psycopg
import redis
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from tests.support.upstream import Upstream, json_response

from approvals import gateway
from specbridge.config import config_from_data
from specbridge.gateway import Gateway, bind, serve_http
from specbridge.store import StoredFile, open_store

ROOT = Path(__file__).resolve().parents[1]
SHOP = ROOT / "src" / "specbridge" / "examples" / "shop.openapi.yaml"
POSTGRES = "postgresql://postgres@127.0.0.1:5432/test"
REDIS = "redis://127.0.0.1:6379/0"


async def bench(store_url: str, size: int, uploads: int, folder: str | None) -> tuple[float, float, float]:
    files: dict[str, object] = {"max_bytes": size + 1}
    if folder is not None:
        files["folder"] = folder
    config = config_from_data(
        {
            "apis": {"shop": {"spec": str(SHOP), "base_url": "https://shop.example"}},
            "store": store_url,
            "files": files,
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
    if folder is not None:
        return up, down, float("nan")  # the store holds only records: no `put_file` of the bytes to time
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
    parser.add_argument("--call-mb", type=float, default=1)
    parser.add_argument("--calls", type=int, default=30)
    options = parser.parse_args()
    size = int(options.size_mb * 1e6)
    namespace = f"bench_files_{secrets.token_hex(4)}"
    print(f"{options.uploads} uploads of {size:,} bytes, one at a time")
    print(f"{'backend':<22}{'POST /files MB/s':>18}{'GET MB/s':>10}{'put_file MB/s':>15}")
    with tempfile.TemporaryDirectory() as folder:
        urls = {
            "sqlite": f"sqlite:///{folder}/state.db",
            "postgresql": f"{POSTGRES}?namespace={namespace}",
            "redis": f"{REDIS}?namespace={namespace}",
        }
        try:
            for bytes_in in ("store", "folder"):
                for name, url in urls.items():
                    blobs = f"{folder}/blobs-{name}" if bytes_in == "folder" else None
                    up, down, direct = anyio.run(bench, url, size, options.uploads, blobs)
                    label = name if blobs is None else f"{name} + folder"
                    shown = "—" if direct != direct else f"{direct:.1f}"
                    print(f"{label:<22}{up:>18.1f}{down:>10.1f}{shown:>15}")
        finally:
            with psycopg.connect(POSTGRES, autocommit=True) as conn:
                conn.execute(f'DROP SCHEMA IF EXISTS "{namespace}" CASCADE'.encode())
            client = redis.Redis.from_url(REDIS)
            keys = list(client.scan_iter(match=f"{namespace}:*", count=1000))
            if keys:
                client.delete(*keys)
            client.close()
    call_with_a_file(int(options.call_mb * 1e6), options.calls)


# -- one call carrying a file, end to end ---------------------------------------------------------------

BLOB_SPEC = """\
openapi: 3.1.0
info: {title: Blob store, version: '1'}
paths:
  /blobs/{name}:
    put:
      operationId: putBlob
      summary: Store raw bytes
      parameters:
        - {name: name, in: path, required: true, schema: {type: string}}
      requestBody:
        required: true
        content:
          application/octet-stream:
            schema: {type: string, format: binary}
      responses: {'200': {description: Stored, content: {application/json: {schema: {type: object}}}}}
"""


def blob_config(home: Path, upstream: Upstream, *, folder: bool, max_string: int | None) -> Path:
    home.mkdir()
    (home / "blobs.yaml").write_text(BLOB_SPEC, encoding="utf-8")
    limits = f"limits: {{max_string: {max_string}}}\n" if max_string else ""
    files = "files: {folder: ./files}\n" if folder else ""
    config = home / "specbridge.yaml"
    config.write_text(
        f"apis:\n  blobs:\n    spec: ./blobs.yaml\n    base_url: {upstream.url}\n"
        f'    egress: {{allow: ["{upstream.address}"]}}\n    timeout: 30\n'
        f"store: 'sqlite:///{home / 'state.db'}'\n{files}{limits}",
        encoding="utf-8",
    )
    return config


def percentiles(samples: list[float]) -> str:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    return f"p50 {statistics.median(ordered) * 1000:7.1f} ms  p95 {p95 * 1000:7.1f} ms"


async def timed_calls(bases: dict[str, str], data: bytes, calls: int, upstream: Upstream) -> dict[str, str]:
    """Per gateway and way of passing the file: one call at a time, `calls` each (after 3 not timed),
    round-robin over all of them so the shared machine's noise falls on each alike; the upstream checked
    to have received exactly `data` every time."""
    encoded = base64.b64encode(data).decode()
    ways: dict[tuple[str, str], dict[str, object]] = {}
    uploaded: dict[str, list[float]] = {label: [] for label in bases}
    async with httpx.AsyncClient(timeout=120) as http:
        for _ in range(calls + 3):
            for label, base in bases.items():
                started = time.perf_counter()
                answer = await http.post(f"{base}/files", content=data, headers={"Content-Type": "image/png"})
                answer.raise_for_status()
                uploaded[label].append(time.perf_counter() - started)
                file_id = answer.json()["file_id"]
                ways[label, "file_id"] = {"name": "b1", "body": {"file_id": file_id}}
                ways[label, "attachments"] = {"name": "b1", "attachments": [{"file_id": file_id}]}
                ways[label, "base64 text"] = {"name": "b1", "body": encoded}
    samples: dict[tuple[str, str], list[float]] = {key: [] for key in ways}
    async with AsyncExitStack() as stack:
        clients = {}
        for label, base in bases.items():
            http_client = await stack.enter_async_context(create_mcp_http_client())
            clients[label] = await stack.enter_async_context(
                Client(streamable_http_client(f"{base}/mcp", http_client=http_client), mode="legacy")
            )
        for round_ in range(calls + 3):
            for (label, way), arguments in ways.items():
                upstream.requests.clear()
                started = time.perf_counter()
                result = await clients[label].call_tool("putBlob", arguments)
                elapsed = time.perf_counter() - started
                assert not result.is_error, (label, way, result.content)
                assert upstream.requests[-1].body == data, (label, way)
                if round_ >= 3:
                    samples[label, way].append(elapsed)
    figures = {
        f"files in the {label:<7} {way}": percentiles(values) for (label, way), values in samples.items()
    }
    for label, values in uploaded.items():
        figures[f"files in the {label:<7} POST /files (the upload)"] = percentiles(values[3:])
    return figures


async def refused_as_text(base: str, data: bytes) -> str:
    async with (
        create_mcp_http_client() as http_client,
        Client(streamable_http_client(f"{base}/mcp", http_client=http_client), mode="legacy") as client,
    ):
        result = await client.call_tool("putBlob", {"name": "b1", "body": base64.b64encode(data).decode()})
    text = result.content[0].text if result.content else ""  # type: ignore[union-attr]
    return text[:160] if result.is_error else "accepted"


def call_with_a_file(size: int, calls: int) -> None:
    data = os.urandom(size)
    room = len(base64.b64encode(data)) + 1024  # `limits.max_string` the base64 text needs
    print(
        f"\none putBlob call carrying {size:,} bytes, {calls} calls each way (specbridge serve, SDK client)"
    )
    with Upstream() as upstream, tempfile.TemporaryDirectory() as folder, ExitStack() as running:
        upstream.route("/blobs/b1", json_response({"stored": True}))
        bases = {
            label: running.enter_context(
                gateway(
                    blob_config(Path(folder) / label, upstream, folder=label == "folder", max_string=room)
                )
            )
            for label in ("store", "folder")
        }
        for way, figures in anyio.run(timed_calls, bases, data, calls, upstream).items():
            print(f"  {way:<48} {figures}")
        base = running.enter_context(
            gateway(blob_config(Path(folder) / "defaults", upstream, folder=False, max_string=None))
        )
        print(f"  base64 text under the default limits: {anyio.run(refused_as_text, base, data)}")


if __name__ == "__main__":
    main()
