"""Calls per second per core: `serve --workers N` against one worker, under a load that costs little.

    .venv/bin/python bench/cores.py [--workers 2] [--seconds 8] [--rounds 3] [--connections 64]

On a machine of two cores, the SDK clients of `bench/serve.py` (Python, about 1.5 ms of CPU a call)
take a core of their own, so a second worker has none to run on. Here the load comes from wrk (C:
a Lua script sends one 2026-07-28 `tools/call getProduct` a request on kept-alive connections and
checks that each answer is the product, not an error) and the upstream is nginx answering the product
from its config: the two together cost about 35 µs a call where the gateway costs over a millisecond,
so the gateway's workers have nearly both cores. One worker and N alternate, `--rounds` times each,
each timed run after a warm-up of two seconds on the same processes; the gateway's CPU time over the
timed run (its processes and their children, from /proc) gives the calls per CPU-second. Needs
Debian's `wrk` and `nginx`.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from serve import TOKEN, free_port, start_gateway, tree_cpu_seconds, wait_port

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
WRK = shutil.which("wrk")
PRODUCT = '{"id":"p-mug","name":"Mug","price":{"amount":1200,"currency":"EUR"},"tags":["kitchen"]}'
CALL = (
    '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"getProduct","arguments":{"id":"p-mug"},'
    '"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
    '"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"},'
    '"io.modelcontextprotocol/clientCapabilities":{}}}}'
)
LUA = (
    textwrap.dedent("""\
    wrk.method = "POST"
    wrk.body = [[%s]]
    wrk.headers["Content-Type"] = "application/json"
    wrk.headers["Accept"] = "application/json, text/event-stream"
    wrk.headers["MCP-Protocol-Version"] = "2026-07-28"
    wrk.headers["Mcp-Method"] = "tools/call"
    wrk.headers["Mcp-Name"] = "getProduct"
    local threads = {}
    function setup(thread) table.insert(threads, thread) end
    function init(args) good = 0; bad = 0 end
    function response(status, headers, body)
      if status == 200 and body:find('"p-mug"', 1, true) and not body:find('"isError":true', 1, true) then
        good = good + 1
      else
        bad = bad + 1
      end
    end
    function done(summary, latency, requests)
      local g, b = 0, 0
      for _, t in ipairs(threads) do g = g + t:get("good"); b = b + t:get("bad") end
      io.write(string.format("RESULT %%d %%d %%d %%.3f %%.3f %%.3f\\n", g, b,
        summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
        summary.duration / 1e6, latency:percentile(50) / 1000, latency:percentile(99) / 1000))
    end
    """)
    % CALL
)


def start_nginx(folder: Path, port: int) -> subprocess.Popen[bytes]:
    """nginx answering `GET /v1/products/p-mug` with the product (401 without the bench's token)."""
    config = folder / "nginx.conf"
    config.write_text(
        textwrap.dedent(f"""\
        daemon off;
        worker_processes 1;
        pid {folder}/nginx.pid;
        error_log {folder}/error.log warn;
        events {{ worker_connections 1024; }}
        http {{
          access_log off;
          client_body_temp_path {folder}; proxy_temp_path {folder}; fastcgi_temp_path {folder};
          uwsgi_temp_path {folder}; scgi_temp_path {folder};
          server {{
            listen 127.0.0.1:{port};
            location = /v1/products/p-mug {{
              if ($http_authorization != "Bearer {TOKEN}") {{ return 401; }}
              default_type application/json;
              return 200 '{PRODUCT}';
            }}
          }}
        }}
        """)
    )
    process = subprocess.Popen([NGINX, "-p", str(folder), "-c", str(config)], stderr=subprocess.DEVNULL)
    wait_port(port)
    return process


def wrk(script: Path, url: str, connections: int, seconds: int) -> tuple[int, int, float, float, float]:
    """(answers that are the product, other answers and socket errors, seconds, p50 ms, p99 ms)."""
    ran = subprocess.run(
        [str(WRK), "-t1", f"-c{connections}", f"-d{seconds}s", "--timeout", "10s", "-s", str(script), url],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    found = re.search(r"RESULT (\d+) (\d+) (\d+) ([\d.]+) ([\d.]+) ([\d.]+)", ran.stdout)
    assert found is not None, ran.stdout + ran.stderr
    good, bad, errors = (int(found.group(n)) for n in (1, 2, 3))
    return good, bad + errors, float(found.group(4)), float(found.group(5)), float(found.group(6))


def cores(workers: int, seconds: int, rounds: int, connections: int) -> dict[str, float]:
    """Prints the table and answers its figures (name → value, as `bench/serve.py --out` writes them)."""
    print(f"\n## Calls per second per core: --workers {workers} against one (wrk, nginx upstream)\n")
    if WRK is None or not Path(NGINX).exists():
        print("skipped: needs Debian's wrk and nginx (apt-get install wrk nginx)\n")
        return {}
    print(
        "| workers | round | calls | calls/s | p50 ms | p99 ms | errors | gateway CPU s | calls per CPU-s |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    rates: dict[int, list[float]] = {1: [], workers: []}
    per_cpu: dict[int, list[float]] = {1: [], workers: []}
    with tempfile.TemporaryDirectory() as directory:
        here = Path(directory)
        script = here / "call.lua"
        script.write_text(LUA)
        upstream_port = free_port()
        upstream = start_nginx(here, upstream_port)
        try:
            for number in range(rounds):
                for count in (1, workers):
                    port = free_port()
                    gateway = start_gateway(here, upstream_port, port, count)
                    try:
                        url = f"http://127.0.0.1:{port}/mcp"
                        wrk(script, url, connections, 2)  # warm-up: every worker has served
                        before = tree_cpu_seconds(gateway.pid)
                        good, errors, wall, p50, p99 = wrk(script, url, connections, seconds)
                        cpu = tree_cpu_seconds(gateway.pid) - before
                    finally:
                        gateway.terminate()
                        gateway.wait()
                    rates[count].append(good / wall)
                    per_cpu[count].append(good / cpu)
                    print(
                        f"| {count} | {number + 1} | {good} | {good / wall:,.0f} | {p50:.2f} | {p99:.2f} | "
                        f"{errors} | {cpu:.2f} | {good / cpu:,.0f} |"
                    )
        finally:
            upstream.terminate()
            upstream.wait()
    one, many = statistics.median(rates[1]), statistics.median(rates[workers])
    print(
        f"\nMedians: one worker {one:,.0f} calls/s, {workers} workers {many:,.0f} calls/s: "
        f"**{many / one:.2f}x**; calls per CPU-second {statistics.median(per_cpu[1]):,.0f} (one) and "
        f"{statistics.median(per_cpu[workers]):,.0f} ({workers}). Load average {os.getloadavg()[0]:.1f}.\n"
    )
    return {
        f"cores_calls_per_s_{connections}_workers1": one,
        f"cores_calls_per_s_{connections}_workers{workers}": many,
        f"cores_calls_per_cpu_s_workers{workers}": statistics.median(per_cpu[workers]),
        f"ratio_workers{workers}_to_one_{connections}": many / one,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seconds", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--connections", type=int, default=64)
    args = parser.parse_args()
    cores(args.workers, args.seconds, args.rounds, args.connections)


if __name__ == "__main__":
    main()
