"""One client cannot stall or bloat the gateway: a hostile call beside trivial ones, and memory under load.

    .venv/bin/python bench/hostile.py [--hostile N] [--calls N] [--sessions N] [--skip-memory]

1. Stall. `specbridge serve` (HTTP, its own process) serves the example shop (`getProduct`, a loopback
   upstream in its own process) and a synthetic API whose `putBatch` takes `{"xs": [...]}`, an array of a
   30-way `oneOf` of object shapes. One session (in a process of its own, so encoding its bodies does not
   hold up this one) sends `--hostile` calls of 10,000 items each, alternately
   all `{}` (fits no branch: refused) and all valid for the last branch (checked, then sent); another
   session sends trivial `getProduct` calls one at a time the whole while. Printed: the trivial call's
   latency alone, then while the hostile calls run (p50, p99, worst), the first hostile call's time (it
   waits for the check worker to start unless the gateway started it), each kind of hostile call's time
   and answer, and the RSS of the gateway and its check worker.
2. Memory. The gateway serves 11 corpus documents (search mode off, every tool listed), base URL the
   loopback upstream. `--sessions` raw JSON-RPC sessions send `--calls` tools/call in all, each to a
   random tool with arguments mutated from its schema by a seeded generator (most are refused by the
   check, the rest reach the upstream and get 404). VmRSS of the gateway (and of its check worker, when
   one runs, and the sum) after start, after listing, and after each quarter of the calls; VmHWM at the
   end.
"""

from __future__ import annotations

import argparse
import itertools
import multiprocessing
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from serve import SHOP_SPEC, SPECBRIDGE, TOKEN, free_port, start_upstream, wait_port

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"
DOCUMENTS = [
    "stripe_spec3_2023-09.yaml",
    "github_api.github.com_2021-10.json",
    "openai_openapi.yaml",
    "adyen_CheckoutService-v71.yaml",
    "asana_oas.yaml",
    "box_openapi.json",
    "notion_openapi.json",
    "slack_web_openapi_v2.json",
    "twilio_api_v2010.json",
    "kubernetes_swagger.json",
    "spotify_fixed-spotify-open-api.yml",
]
BRANCHES = 30
ITEMS = 10_000
PROTOCOL = "2025-06-18"


def union_spec() -> str:
    shapes = "\n".join(
        f"""                    - type: object
                      required: [k{i}]
                      properties: {{k{i}: {{type: string}}, n: {{type: integer}}}}"""
        for i in range(BRANCHES)
    )
    return f"""\
openapi: 3.1.0
info: {{title: Batch, version: '1'}}
paths:
  /batch:
    put:
      operationId: putBatch
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              properties:
                xs:
                  type: array
                  items:
                    oneOf:
{shapes}
      responses: {{'200': {{description: OK}}}}
"""


class Session:
    """A raw JSON-RPC session over Streamable HTTP (initialize, initialized, then requests)."""

    def __init__(self, http: httpx.AsyncClient, url: str) -> None:
        self.http = http
        self.url = url
        self.headers = {"Accept": "application/json, text/event-stream", "Mcp-Protocol-Version": PROTOCOL}
        self.ids = itertools.count(1)

    async def open(self) -> Session:
        params = {
            "protocolVersion": PROTOCOL,
            "capabilities": {},
            "clientInfo": {"name": "bench", "version": "1"},
        }
        response = await self.http.post(
            self.url,
            headers=self.headers,
            json={"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params},
        )
        self.headers["Mcp-Session-Id"] = response.headers["mcp-session-id"]
        await self.http.post(
            self.url, headers=self.headers, json={"jsonrpc": "2.0", "method": "notifications/initialized"}
        )
        return self

    async def request(self, method: str, params: dict[str, Any]) -> tuple[int, Any]:
        body = {"jsonrpc": "2.0", "id": next(self.ids), "method": method, "params": params}
        response = await self.http.post(self.url, headers=self.headers, json=body)
        return response.status_code, response.json() if response.status_code == 200 else response.text


def start_gateway(config: Path, port: int, log: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "SB_BENCH_TOKEN": TOKEN}
    process = subprocess.Popen(
        [*SPECBRIDGE, "serve", "--config", str(config), "--transport", "http", "--port", str(port)],
        env=env,
        stderr=log.open("wb"),
    )
    try:
        wait_port(port, timeout=600)
    except TimeoutError:
        process.kill()
        raise SystemExit(log.read_text(errors="replace")[-2000:]) from None
    return process


def summary(times: list[float]) -> str:
    ordered = sorted(times)
    p99 = ordered[max(0, int(len(ordered) * 0.99) - 1)]
    return (
        f"p50 {statistics.median(ordered) * 1e3:.1f} ms, p99 {p99 * 1e3:.1f} ms, "
        f"worst {ordered[-1] * 1e3:.1f} ms ({len(ordered)} calls)"
    )


def outcome(body: Any) -> str:
    if not isinstance(body, dict):
        return f"HTTP error {str(body)[:80]}"
    if "error" in body:
        return f"JSON-RPC {body['error']['code']}"
    text = body["result"]["content"][0]["text"]
    return text.split("]", 1)[0] + "]" if text.startswith("[") else "result"


TRIVIAL = {"name": "getProduct", "arguments": {"id": "p-mug"}}


def hostile_params(number: int) -> tuple[str, dict[str, Any]]:
    if number % 2 == 0:
        return "refused", {"name": "putBatch", "arguments": {"xs": [{}] * ITEMS}}
    return "fitting", {"name": "putBatch", "arguments": {"xs": [{f"k{BRANCHES - 1}": "v", "n": 1}] * ITEMS}}


def attack(base: str, hostile: int, results: Any) -> None:
    """The hostile session, in a process of its own: encoding and decoding its 200 KB bodies would
    otherwise hold up the bystander's event loop in this process and count as the gateway's delay."""

    async def run() -> None:
        async with httpx.AsyncClient(timeout=120) as http:
            batch = await Session(http, f"{base}/batch/mcp").open()
            results.put(("ready", 0.0, ""))
            for number in range(hostile):
                kind, params = hostile_params(number)
                started = time.perf_counter()
                _, body = await batch.request("tools/call", params)
                results.put((kind, time.perf_counter() - started, outcome(body)))

    anyio.run(run)
    results.put(("done", 0.0, ""))


def children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(child) for child in (task / "children").read_text().split()]
    return found


async def stall(base: str, hostile: int, pid: int) -> None:
    async with httpx.AsyncClient(timeout=120) as http:
        shop = await Session(http, f"{base}/shop/mcp").open()
        alone: list[float] = []
        for _ in range(1_100):  # about as long as the hostile calls take: worst cases compare
            started = time.perf_counter()
            await shop.request("tools/call", TRIVIAL)
            alone.append(time.perf_counter() - started)
        print(f"trivial call alone:                {summary(alone[100:])}")
        print(f"RSS before the hostile calls: {rss(pid)}")
        context = multiprocessing.get_context("spawn")
        results = context.Queue()
        attacker = context.Process(target=attack, args=(base, hostile, results))
        attacker.start()
        assert (await anyio.to_thread.run_sync(results.get, True, 120))[0] == "ready"
        during: list[float] = []
        hostile_times: dict[str, list[float]] = {"refused": [], "fitting": []}
        answers: dict[str, set[str]] = {"refused": set(), "fitting": set()}
        finished = False
        while not finished:
            while not results.empty():
                kind, seconds, answer = results.get()
                if kind == "done":
                    finished = True
                    break
                if not any(hostile_times.values()):
                    print(f"first hostile call ({kind}): {seconds * 1e3:.0f} ms")
                hostile_times[kind].append(seconds)
                answers[kind].add(answer)
            if finished or not attacker.is_alive():
                break
            started = time.perf_counter()
            await shop.request("tools/call", TRIVIAL)
            during.append(time.perf_counter() - started)
        attacker.join(30)
        print(f"trivial call beside hostile ones:  {summary(during)}")
        for kind, times in hostile_times.items():
            print(f"hostile call, {ITEMS:,} items {kind}: {summary(times)}; answer {sorted(answers[kind])}")
        print(f"gateway RSS {vm(pid, 'VmRSS')} MB (peak {vm(pid, 'VmHWM')} MB)", end="")
        for child in children(pid):
            print(
                f"; check worker {child}: RSS {vm(child, 'VmRSS')} MB (peak {vm(child, 'VmHWM')} MB)", end=""
            )
        print()


def rss(pid: int) -> str:
    """The gateway's VmRSS, and with a check worker running (call/_offload.py), the worker's and the sum."""
    own = vm(pid, "VmRSS")
    workers = [vm(child, "VmRSS") for child in children(pid)]
    if not workers:
        return f"{own} MB (no check worker)"
    return f"{own} MB + check worker {' + '.join(map(str, workers))} MB = {own + sum(workers)} MB"


def mutate(schema: Any, rng: random.Random, depth: int = 0) -> Any:
    """A value for `schema`, often of the wrong type or shape (seeded)."""
    roll = rng.random()
    if depth > 4 or not isinstance(schema, dict) or roll < 0.15:
        return rng.choice([None, True, 0, -1, 2**40, 1.5, "", "x" * rng.randint(1, 200), [], {}, [{}] * 50])
    kind = schema.get("type")
    if kind == "object" or "properties" in schema:
        properties = schema.get("properties", {})
        names = list(properties)
        chosen = rng.sample(names, k=min(len(names), rng.randint(0, 4)))
        value = {name: mutate(properties[name], rng, depth + 1) for name in chosen}
        if rng.random() < 0.1:
            value["unexpected"] = "x"
        return value
    if kind == "array":
        return [mutate(schema.get("items"), rng, depth + 1) for _ in range(rng.randint(0, 5))]
    if schema.get("enum"):
        return rng.choice(schema["enum"])
    return {"string": "text", "integer": rng.randint(-5, 5), "number": 2.5, "boolean": True}.get(
        kind if isinstance(kind, str) else "", "text"
    )


def vm(pid: int, field: str) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(next(line for line in status.splitlines() if line.startswith(field)).split()[1]) // 1024


async def memory(base: str, apis: list[str], pid: int, calls: int, sessions: int) -> None:
    print(f"\nRSS after start: {rss(pid)}")
    tools: dict[str, list[dict[str, Any]]] = {}
    async with httpx.AsyncClient(timeout=120) as http:
        for api in apis:
            session = await Session(http, f"{base}/{api}/mcp").open()
            listed: list[dict[str, Any]] = []
            cursor: str | None = None
            while True:
                _, body = await session.request("tools/list", {"cursor": cursor} if cursor else {})
                listed += body["result"]["tools"]
                cursor = body["result"].get("nextCursor")
                if not cursor:
                    break
            tools[api] = listed
        total = sum(len(listed) for listed in tools.values())
        print(f"RSS after listing {total:,} tools of {len(apis)} APIs: {rss(pid)}")
        rng = random.Random(14)
        plan = [(api, tool) for api, listed in tools.items() for tool in listed]
        counts: dict[str, int] = {}
        remaining = calls
        quarter = calls // 4
        opened = [
            {api: await Session(http, f"{base}/{api}/mcp").open() for api in apis} for _ in range(sessions)
        ]

        async def worker(mine: dict[str, Session]) -> None:
            nonlocal remaining
            while remaining > 0:
                remaining -= 1
                if remaining % quarter == 0:
                    print(f"RSS after {calls - remaining:,} calls: {rss(pid)}")
                api, tool = rng.choice(plan)
                arguments = mutate(tool["inputSchema"], rng)
                params = {"name": tool["name"], "arguments": arguments if isinstance(arguments, dict) else {}}
                status, body = await mine[api].request("tools/call", params)
                key = outcome(body) if status == 200 else f"HTTP {status}"
                counts[key] = counts.get(key, 0) + 1

        started = time.perf_counter()
        async with anyio.create_task_group() as tasks:
            for mine in opened:
                tasks.start_soon(worker, mine)
        wall = time.perf_counter() - started
    print(
        f"{calls:,} calls in {wall:.0f} s over {sessions} sessions; answers: {dict(sorted(counts.items()))}"
    )
    print(f"RSS at the end: {vm(pid, 'VmRSS')} MB, peak (VmHWM) {vm(pid, 'VmHWM')} MB")
    for child in children(pid):
        print(f"check worker {child}: RSS {vm(child, 'VmRSS')} MB, peak {vm(child, 'VmHWM')} MB")


def config_text(upstream: int, apis: dict[str, Path]) -> str:
    lines = ["apis:"]
    for name, spec in apis.items():
        lines += [
            f"  {name}:",
            f"    spec: {spec}",
            f"    base_url: http://127.0.0.1:{upstream}/v1",
            "    auth: {type: bearer, secret: env:SB_BENCH_TOKEN}",
            f'    egress: {{allow: ["127.0.0.1:{upstream}"]}}',
            '    search: "off"',
        ]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hostile", type=int, default=20)
    parser.add_argument("--calls", type=int, default=20_000)
    parser.add_argument("--sessions", type=int, default=8)
    parser.add_argument("--skip-memory", action="store_true")
    options = parser.parse_args()
    upstream_port = free_port()
    upstream = start_upstream(upstream_port)
    try:
        with tempfile.TemporaryDirectory() as folder:
            directory = Path(folder)
            (directory / "batch.yaml").write_text(union_spec())
            config = directory / "stall.yaml"
            config.write_text(
                config_text(upstream_port, {"shop": SHOP_SPEC, "batch": directory / "batch.yaml"})
            )
            port = free_port()
            gateway = start_gateway(config, port, directory / "stall.log")
            try:
                print(f"## Stall: {options.hostile} hostile calls beside trivial ones\n")
                anyio.run(stall, f"http://127.0.0.1:{port}", options.hostile, gateway.pid)
            finally:
                gateway.terminate()
                gateway.wait()
            if options.skip_memory or not CORPUS.is_dir():
                return
            apis = {Path(name).stem.split("_")[0]: CORPUS / name for name in DOCUMENTS}
            config = directory / "memory.yaml"
            config.write_text(config_text(upstream_port, apis))
            port = free_port()
            gateway = start_gateway(config, port, directory / "memory.log")
            try:
                print(f"\n## Memory: {len(apis)} corpus documents, {options.calls:,} mutated calls")
                anyio.run(
                    memory,
                    f"http://127.0.0.1:{port}",
                    list(apis),
                    gateway.pid,
                    options.calls,
                    options.sessions,
                )
            finally:
                gateway.terminate()
                gateway.wait()
            log = (directory / "memory.log").read_text(errors="replace")
            print(
                f"gateway log: {log.count('Traceback')} tracebacks, {log.count('gateway-internal')} gateway-internal"
            )
    finally:
        upstream.terminate()
        upstream.wait()


if __name__ == "__main__":
    main()
