"""The MCP gateway under load, its start-up on a big document, and its memory on Stripe.

    .venv/bin/python bench/serve.py [--calls N] [--peer] [--workers N] [--out FIGURES.json]

With `--out`, every figure is also written to a JSON file (`bench/compare.py` compares two such files
by ratio: `make bench-check`).

1. tools/call throughput and per-call latency (p50/p99) over Streamable HTTP with 1, 8 and 64 concurrent
   MCP clients (official SDK, handshake era, one session each), `getProduct` of the example shop served
   by our own Starlette app on loopback. Gateway and upstream run in their own processes; the clients run
   in this one. With `--peer`, the same against FastMCP's OpenAPI server (`bench/.venv-peer`). Every
   server runs the whole time and the load goes to each in turn, `--rounds` times (the median kept), so
   a slow minute of a shared machine falls on all of them alike.
   Then the latency a server adds, one call at a time: the p50 of the same GET sent straight to the
   upstream, and of tools/call sent by a plain HTTP client (httpx, JSON-RPC on an open session, no SDK
   client in the way) to the server, both from one httpx client in this process.
   The same load from 2026-07-28 clients (stateless: no session), and with `--workers N` the same
   again against `serve --workers N`; then `bench/cores.py` (`--only cores`): N workers against one
   under a load from wrk and an nginx upstream, which leave the gateway the cores.
2. Time from starting `specbridge serve` on the GitHub document (3.7 MB, 719 tools) to the first
   complete tools/list answer, over stdio (exact) and HTTP (polled every 20 ms): with an empty cache
   folder (`--no-cache`: the document converted, the gateway answering) and with a warm one (the
   conversion kept and the stdio front's answers recorded by a start before).
3. Peak RSS (VmHWM) of `specbridge serve` on the Stripe document after listing every tool and, in
   search mode, one search (its index built), without and with the conversion cache.
4. `--only tracing`: the latency a gateway adds per call (as in 1, one call at a time) with OpenTelemetry
   off and with traces and metrics exported to an OTLP/HTTP sink on loopback (a thread of this process
   that reads each export and answers 200), alternating rounds of gateways started each way.
5. `--only listing`: the tools/list requests one SDK client session sends in 50 turns (a turn as a host
   runs one: list the tools, call `getProduct`), on each era: the 2026-07-28 client keeps a listing
   for the `ttlMs` the gateway gives (docs/startup.md, "Cache hints").
"""

from __future__ import annotations

import argparse
import datetime
import http.server
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import anyio
import httpx
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

ROOT = Path(__file__).resolve().parents[1]
# beside the checkout (../shared/corpus), or beside the folder of worktrees it is one of
CORPUS = next(
    (
        where
        for where in (ROOT.parent / "shared" / "corpus", ROOT.parents[1] / "shared" / "corpus")
        if where.is_dir()
    ),
    ROOT.parent / "shared" / "corpus",
)
GITHUB = CORPUS / "github_api.github.com_2021-10.json"
STRIPE = CORPUS / "stripe_spec3_2023-09.yaml"
SHOP_SPEC = ROOT / "src" / "specbridge" / "examples" / "shop.openapi.yaml"
PYTHON = sys.executable
SPECBRIDGE = [PYTHON, "-m", "specbridge"]
TOKEN = "bench-token"
PEER_PYTHON = ROOT / "bench" / ".venv-peer" / "bin" / "python"
# `pip install -e '.[gateway]'` alone: what a user serving gets, without the dev tools and the semantic
# extra, whose hub client (7 MiB) is imported to look for a model (docs/benchmarks.md says how to make it)
GATEWAY_PYTHON = ROOT / "bench" / ".venv-gateway" / "bin" / "python"
MODERN = "2026-07-28"
FIGURES: dict[str, float] = {}  # what --out writes: name -> value (see bench/compare.py for each one's sense)


def figure(name: str, value: float) -> float:
    FIGURES[name] = round(value, 4)
    return value


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_port(port: int, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.02)
    raise TimeoutError(f"nothing listens on {port}")


def tree_cpu_seconds(root: int) -> float:
    """User and system time of `root` and every process under it, as the kernel counts them now."""
    parents: dict[int, int] = {}
    times: dict[int, float] = {}
    tick = os.sysconf("SC_CLK_TCK")
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(entry.name)] = int(fields[1])
        times[int(entry.name)] = (int(fields[11]) + int(fields[12])) / tick
    total, stack = 0.0, [root]
    while stack:
        pid = stack.pop()
        total += times.get(pid, 0.0)
        stack += [child for child, parent in parents.items() if parent == pid]
    return total


def start_upstream(port: int) -> subprocess.Popen[bytes]:
    code = (
        "import uvicorn; from specbridge.examples.shop_api import shop_app; "
        f"uvicorn.run(shop_app({TOKEN!r}), host='127.0.0.1', port={port}, log_level='warning', access_log=False)"
    )
    process = subprocess.Popen([PYTHON, "-c", code])
    wait_port(port)
    return process


def start_gateway(
    directory: Path, upstream_port: int, port: int, workers: int = 1, extra: str = ""
) -> subprocess.Popen[bytes]:
    config = directory / "specbridge.yaml"
    config.write_text(
        textwrap.dedent(f"""\
        apis:
          shop:
            spec: {SHOP_SPEC}
            base_url: http://127.0.0.1:{upstream_port}/v1
            auth: {{type: bearer, secret: env:SB_BENCH_TOKEN}}
            egress: {{allow: ["127.0.0.1:{upstream_port}"]}}
        """)
        + extra
    )
    env = {**os.environ, "SB_BENCH_TOKEN": TOKEN}
    process = subprocess.Popen(
        [*SPECBRIDGE, "serve", "--config", str(config), "--transport", "http", "--port", str(port),
         *(["--workers", str(workers)] if workers > 1 else [])],
        env=env,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    wait_port(port)
    return process


def start_peer(upstream_port: int, port: int) -> subprocess.Popen[bytes]:
    code = textwrap.dedent(f"""\
        import httpx2 as httpx, yaml
        from fastmcp import FastMCP
        spec = yaml.safe_load(open({str(SHOP_SPEC)!r}))
        client = httpx.AsyncClient(base_url="http://127.0.0.1:{upstream_port}/v1",
                                   headers={{"Authorization": "Bearer {TOKEN}"}})
        mcp = FastMCP.from_openapi(openapi_spec=spec, client=client, name="shop")
        mcp.run(transport="http", host="127.0.0.1", port={port}, show_banner=False, log_level="WARNING")
        """)
    process = subprocess.Popen([str(PEER_PYTHON), "-c", code], stderr=subprocess.DEVNULL)
    wait_port(port)
    return process


async def load(url: str, clients: int, calls: int, mode: str = "legacy") -> tuple[float, float, float, int]:
    """(calls per second, p50 ms, p99 ms, errors) for `calls` tools/call spread over `clients`, timed
    from the moment every client has its session open (`mode`: "legacy", the handshake era with a
    session each, or "2026-07-28", stateless)."""
    latencies: list[float] = []
    errors = 0
    remaining = calls
    connected = 0
    go = anyio.Event()

    async def one_client() -> None:
        nonlocal remaining, errors, connected
        async with (
            create_mcp_http_client() as http,
            Client(streamable_http_client(url, http_client=http), mode=mode) as client,
        ):
            await client.list_tools()
            connected += 1
            if connected == clients:
                go.set()
            await go.wait()
            while remaining > 0:
                remaining -= 1
                started = time.perf_counter()
                result = await client.call_tool("getProduct", {"id": "p-mug"})
                latencies.append(time.perf_counter() - started)
                errors += int(result.is_error)

    async with anyio.create_task_group() as tasks:
        for _ in range(clients):
            tasks.start_soon(one_client)
        await go.wait()
        started = time.perf_counter()
    wall = time.perf_counter() - started
    ordered = sorted(latencies)
    return (
        len(ordered) / wall,
        statistics.median(ordered) * 1e3,
        ordered[max(0, int(len(ordered) * 0.99) - 1)] * 1e3,
        errors,
    )


async def added(url: str, upstream_port: int, calls: int) -> tuple[float, float]:
    """(p50 ms of the GET sent straight to the upstream, p50 ms of tools/call through the server at `url`),
    one call at a time from one plain httpx client, measured alternately in rounds of 50."""
    direct_url = f"http://127.0.0.1:{upstream_port}/v1/products/p-mug"
    accept = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    direct: list[float] = []
    gateway: list[float] = []
    async with httpx.AsyncClient(timeout=30) as http:
        opened = await http.post(
            url,
            headers=accept,
            json={
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "bench", "version": "1"},
                },
            },
        )
        headers = {
            **accept,
            "Mcp-Session-Id": opened.headers["mcp-session-id"],
            "Mcp-Protocol-Version": "2025-06-18",
        }
        await http.post(url, headers=headers, json={"jsonrpc": "2.0", "method": "notifications/initialized"})
        call = {"name": "getProduct", "arguments": {"id": "p-mug"}}
        for number in range(calls + 100):  # the first 100 (50 of each) warm up
            started = time.perf_counter()
            if number % 100 < 50:
                response = await http.get(direct_url, headers={"Authorization": f"Bearer {TOKEN}"})
                times = direct
            else:
                body = {"jsonrpc": "2.0", "id": number + 1, "method": "tools/call", "params": call}
                response = await http.post(url, headers=headers, json=body)
                times = gateway
            elapsed = time.perf_counter() - started
            assert response.status_code == 200 and b"p-mug" in response.content, response.content[:200]
            if number >= 100:
                times.append(elapsed)
    return statistics.median(direct) * 1e3, statistics.median(gateway) * 1e3


def throughput(calls: int, peer: bool, workers: int, rounds: int) -> None:
    """Every server runs the whole time; the load goes to each in turn, `rounds` times, so that a slow
    minute of a shared machine falls on all of them, and each figure is the median of its rounds."""
    print(f"## tools/call over Streamable HTTP (getProduct, loopback upstream; median of {rounds} rounds)\n")
    print("| server | clients | calls | calls/s | each round | p50 ms | p99 ms | errors |")
    print("|---|---:|---:|---:|---|---:|---:|---:|")
    upstream_port = free_port()
    upstream = start_upstream(upstream_port)
    processes: list[subprocess.Popen[bytes]] = []
    try:
        with tempfile.TemporaryDirectory() as directory:
            here = Path(directory)
            # (name, figure prefix, client mode, how to start it): the peer speaks the handshake era only
            servers: list[tuple[str, str, str, Any]] = [
                ("specbridge", "specbridge", "legacy", lambda port: start_gateway(here, upstream_port, port)),
                (f"specbridge, {MODERN} clients", "specbridge_modern", MODERN,
                 lambda port: start_gateway(here, upstream_port, port)),
            ]  # fmt: skip
            if workers > 1:
                servers.append(
                    (f"specbridge --workers {workers}, {MODERN} clients", f"specbridge_workers{workers}", MODERN,
                     lambda port: start_gateway(here, upstream_port, port, workers))
                )  # fmt: skip
            if peer and PEER_PYTHON.exists():
                servers.append(
                    (
                        "FastMCP from_openapi",
                        "fastmcp",
                        "legacy",
                        lambda port: start_peer(upstream_port, port),
                    )
                )
            urls: list[str] = []
            for _, _, mode, start in servers:
                port = free_port()
                processes.append(start(port))
                urls.append(f"http://127.0.0.1:{port}/mcp")
                anyio.run(load, urls[-1], 1, 50, mode)  # warm-up
            runs: dict[tuple[str, int], list[tuple[float, float, float, int]]] = {}
            cpu: dict[str, list[float]] = {}  # the server's CPU ms per call, each load
            for _ in range(rounds):
                for (_, prefix, mode, _), url, process in zip(servers, urls, processes, strict=True):
                    for clients in (1, 8, 64):
                        n = max(calls // 4, 100) if clients == 1 else calls
                        before = tree_cpu_seconds(process.pid)
                        runs.setdefault((prefix, clients), []).append(anyio.run(load, url, clients, n, mode))
                        cpu.setdefault(prefix, []).append((tree_cpu_seconds(process.pid) - before) * 1e3 / n)
            for name, prefix, _, _ in servers:
                for clients in (1, 8, 64):
                    each = runs[(prefix, clients)]
                    rate = figure(
                        f"{prefix}_calls_per_s_{clients}", statistics.median(run[0] for run in each)
                    )
                    n = max(calls // 4, 100) if clients == 1 else calls
                    print(
                        f"| {name} | {clients} | {n} | {rate:,.0f} | {' / '.join(f'{run[0]:,.0f}' for run in each)} "
                        f"| {statistics.median(run[1] for run in each):.2f} "
                        f"| {statistics.median(run[2] for run in each):.2f} | {sum(run[3] for run in each)} |"
                    )
            print("\n| server | its CPU ms per call (median of every load; the clients' own not counted) |")
            print("|---|---:|")
            for name, prefix, _, _ in servers:
                print(
                    f"| {name} | {figure(f'{prefix}_cpu_per_call_ms', statistics.median(cpu[prefix])):.2f} |"
                )
            if "fastmcp_cpu_per_call_ms" in FIGURES:
                figure(
                    "cpu_ratio_fastmcp_to_specbridge",
                    FIGURES["fastmcp_cpu_per_call_ms"] / FIGURES["specbridge_cpu_per_call_ms"],
                )
            latency: list[str] = []
            for (name, prefix, mode, _), url in zip(servers, urls, strict=True):
                if mode == "legacy":
                    direct, through = anyio.run(added, url, upstream_port, max(calls // 2, 200))
                    figure(f"{prefix}_added_p50_ms", through - direct)
                    latency.append(f"| {name} | {direct:.2f} | {through:.2f} | {through - direct:.2f} |")
            if "fastmcp_calls_per_s_1" in FIGURES:
                for clients in (1, 8, 64):
                    ours, theirs = (
                        FIGURES[f"specbridge_calls_per_s_{clients}"],
                        FIGURES[f"fastmcp_calls_per_s_{clients}"],
                    )
                    figure(f"ratio_to_fastmcp_{clients}", ours / theirs)
            if workers > 1:  # SDK clients share the cores: `cores` (bench/cores.py) measures workers
                one = FIGURES["specbridge_modern_calls_per_s_64"]
                figure(
                    f"sdk_clients_ratio_workers{workers}_to_one_64",
                    FIGURES[f"specbridge_workers{workers}_calls_per_s_64"] / one,
                )
            print("\n## Latency added, one call at a time (plain httpx client)\n")
            print("| server | direct GET p50 ms | tools/call p50 ms | added p50 ms |")
            print("|---|---:|---:|---:|")
            print("\n".join(latency))
    finally:
        for process in [*processes, upstream]:
            process.terminate()
            process.wait()


async def first_list_stdio(spec: Path, *options: str) -> tuple[float, float, int]:
    """(seconds to the first page, seconds to the last page, tools listed) from spawning the server."""
    started = time.perf_counter()
    command = StdioServerParameters(
        command=PYTHON,
        args=["-m", "specbridge", "serve", str(spec), "--base-url", "https://api.github.com", *options],
    )
    async with Client(command, mode="legacy") as client:
        count = 0
        cursor = None
        first = 0.0
        while True:
            page = await client.list_tools(cursor=cursor)
            first = first or time.perf_counter() - started
            count += len(page.tools)
            cursor = page.next_cursor
            if cursor is None:
                break
        return first, time.perf_counter() - started, count


def first_list_http(spec: Path, *options: str) -> float:
    port = free_port()
    started = time.perf_counter()
    process = subprocess.Popen(
        [*SPECBRIDGE, "serve", str(spec), "--base-url", "https://api.github.com", "--transport", "http",
         "--port", str(port), *options],
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        wait_port(port)

        async def first() -> None:
            async with (
                create_mcp_http_client() as http,
                Client(
                    streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=http), mode="legacy"
                ) as c,
            ):
                await c.list_tools()

        anyio.run(first)
        return time.perf_counter() - started
    finally:
        process.terminate()
        process.wait()


def startup(runs: int) -> None:
    print("\n## Start to first tools/list, GitHub document\n")
    print("| transport | cache | first page s (median) | every page s (median) |")
    print("|---|---|---:|---:|")
    with tempfile.TemporaryDirectory() as folder:
        warm = ("--cache-dir", folder)
        anyio.run(first_list_stdio, GITHUB, *warm)  # fills the cache: the conversion and stdio's answers
        for label, options in (("none (`--no-cache`)", ("--no-cache",)), ("warm", warm)):
            stdio = [anyio.run(first_list_stdio, GITHUB, *options) for _ in range(runs)]
            first = statistics.median(f for f, _, _ in stdio)
            every = statistics.median(a for _, a, _ in stdio)
            name = "cold" if "--no-cache" in options else "warm"
            figure(f"startup_stdio_first_{name}_s", first)
            figure(f"startup_stdio_every_{name}_s", every)
            print(f"| stdio | {label} | {first:.2f} | {every:.2f} ({stdio[0][2]} tools) |")
            http = statistics.median(first_list_http(GITHUB, *options) for _ in range(runs))
            figure(f"startup_http_first_{name}_s", http)
            print(f"| HTTP | {label} | {http:.2f} | |")


def memory() -> None:
    python = GATEWAY_PYTHON if GATEWAY_PYTHON.exists() else Path(PYTHON)
    print(
        f"\n## Peak memory serving Stripe ({python.relative_to(ROOT) if python.is_relative_to(ROOT) else python})\n"
    )
    with tempfile.TemporaryDirectory() as folder:
        peak(python, ("--no-cache",), "cold")
        peak(python, ("--cache-dir", folder), "first")  # converts, and keeps the conversion
        peak(python, ("--cache-dir", folder), "warm")


def peak(python: Path, options: tuple[str, ...], name: str) -> None:
    port = free_port()
    process = subprocess.Popen(
        [str(python), "-m", "specbridge", "serve", str(STRIPE), "--base-url", "https://api.stripe.com", "--transport", "http",
         "--port", str(port), *options],
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        wait_port(port, timeout=120)

        async def list_all() -> int:
            async with (
                create_mcp_http_client() as http,
                Client(
                    streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=http), mode="legacy"
                ) as c,
            ):
                count, cursor, names = 0, None, set()
                while True:
                    page = await c.list_tools(cursor=cursor)
                    count += len(page.tools)
                    names.update(tool.name for tool in page.tools)
                    cursor = page.next_cursor
                    if cursor is None:
                        break
                if "search_tools" in names:  # search mode: what an agent does next (the index built)
                    found = await c.call_tool("search_tools", {"query": "refund a charge"})
                    assert not found.is_error, found
                return count

        count = anyio.run(list_all)
        status = Path(f"/proc/{process.pid}/status").read_text()
        hwm = next(line for line in status.splitlines() if line.startswith("VmHWM"))
        rss = next(line for line in status.splitlines() if line.startswith("VmRSS"))
        peak_kib = int(hwm.split(":")[1].split()[0])
        figure(f"memory_stripe_{name}_mib", peak_kib / 1024)
        print(
            f"{' '.join(options)}: {count} tools listed; {peak_kib / 1024:.0f} MiB peak, {rss.split(':')[1].strip()} now"
        )
    finally:
        process.terminate()
        process.wait()


class CountingTransport(httpx.AsyncBaseTransport):
    """Counts the JSON-RPC methods the client sends (what the gateway receives)."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.methods: dict[str, int] = {}

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "POST":
            method = json.loads(await request.aread()).get("method")
            if isinstance(method, str):
                self.methods[method] = self.methods.get(method, 0) + 1
        return await self.inner.handle_async_request(request)


async def turns(url: str, mode: str, count: int) -> int:
    counting = CountingTransport(httpx.AsyncHTTPTransport())
    async with (
        httpx.AsyncClient(transport=counting, timeout=30) as http,
        Client(streamable_http_client(url, http_client=http), mode=mode) as client,
    ):
        for _ in range(count):
            await client.list_tools()
            await client.call_tool("getProduct", {"id": "p-mug"})
    return counting.methods.get("tools/list", 0)


def listing(count: int = 50) -> None:
    print(f"## tools/list requests in one session of {count} turns (list, then call)\n")
    upstream_port, gateway_port = free_port(), free_port()
    upstream = start_upstream(upstream_port)
    try:
        with tempfile.TemporaryDirectory() as directory:
            gateway = start_gateway(Path(directory), upstream_port, gateway_port)
            try:
                url = f"http://127.0.0.1:{gateway_port}/mcp"
                for mode in ("2026-07-28", "legacy"):
                    print(f"- {mode}: {anyio.run(turns, url, mode, count)} tools/list requests")
            finally:
                gateway.terminate()
                gateway.wait()
    finally:
        upstream.terminate()
        upstream.wait()
    print()


class _Sink(http.server.BaseHTTPRequestHandler):
    """An OTLP/HTTP receiver that reads every export and answers 200 (what a collector costs the sender)."""

    received = 0

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", "0")))
        _Sink.received += 1
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()


def _cpu_seconds(pid: int) -> float:
    """User and system CPU time of a process so far (Linux /proc): what calls cost it, whatever the load."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def tracing(calls: int, rounds: int = 5) -> None:
    print("## Latency and gateway CPU per call, tracing off and on (getProduct, one call at a time)\n")
    sink = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Sink)
    threading.Thread(target=sink.serve_forever, daemon=True).start()
    otlp = f"http://127.0.0.1:{sink.server_address[1]}"
    upstream_port = free_port()
    upstream = start_upstream(upstream_port)
    added_ms: dict[str, list[float]] = {"off": [], "on": []}
    cpu_ms: dict[str, list[float]] = {"off": [], "on": []}
    try:
        for _ in range(rounds):
            for mode, extra in (("off", ""), ("on", f"telemetry: {{endpoint: {otlp}}}\n")):
                with tempfile.TemporaryDirectory() as directory:
                    port = free_port()
                    gateway = start_gateway(Path(directory), upstream_port, port, extra=extra)
                    try:
                        before = _cpu_seconds(gateway.pid)
                        url = f"http://127.0.0.1:{port}/mcp"
                        direct, through = anyio.run(added, url, upstream_port, calls)
                        used = _cpu_seconds(gateway.pid) - before
                        added_ms[mode].append(through - direct)
                        cpu_ms[mode].append(used * 1000 / ((calls + 100) // 2))  # half the rounds call
                    finally:
                        gateway.terminate()
                        gateway.wait()
    finally:
        upstream.terminate()
        upstream.wait()
        sink.shutdown()
    print("| tracing | added p50 ms, per round | median | gateway CPU ms per call, per round | median |")
    print("|---|---|---:|---|---:|")
    for mode, values in added_ms.items():
        shown = " / ".join(f"{value:.2f}" for value in values)
        cpu = " / ".join(f"{value:.2f}" for value in cpu_ms[mode])
        median_cpu = statistics.median(cpu_ms[mode])
        print(f"| {mode} | {shown} | {statistics.median(values):.2f} | {cpu} | {median_cpu:.2f} |")
    print(f"\n{_Sink.received} OTLP exports received while on.\n")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--peer", action="store_true", help="also FastMCP from_openapi (bench/.venv-peer)")
    parser.add_argument("--workers", type=int, default=1, help="also serve --workers N (2026-07-28 clients)")
    parser.add_argument("--runs", type=int, default=3, help="start-up runs per figure (the median is kept)")
    parser.add_argument(
        "--rounds", type=int, default=3, help="throughput rounds over every server (median kept)"
    )
    parser.add_argument("--only", choices=["throughput", "cores", "startup", "memory", "listing", "tracing"])
    parser.add_argument("--out", type=Path, help="also write every figure to this JSON file")
    args = parser.parse_args()
    if args.only in (None, "throughput"):
        throughput(args.calls, args.peer, args.workers, args.rounds)
    if args.only == "cores" or (args.only is None and args.workers > 1):
        from cores import cores  # bench/cores.py imports this module's helpers

        FIGURES.update(cores(max(args.workers, 2), seconds=8, rounds=3, connections=64))
    if args.only in (None, "startup"):
        startup(args.runs)
    if args.only in (None, "memory"):
        memory()
    if args.only in (None, "listing"):
        listing()
    if args.only in (None, "tracing"):
        tracing(args.calls)
    if args.out is not None:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT
        )
        record = {
            "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
            "commit": commit.stdout.strip(),
            "command": " ".join(sys.argv),
            "cores": os.cpu_count(),
            "load_average": os.getloadavg()[0],
            "figures": FIGURES,
        }
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(record, indent=2) + "\n")


if __name__ == "__main__":
    main()
