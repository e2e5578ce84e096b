"""The outside review's `fields` attack, measured through one real call (issue 31, item 1).

    .venv/bin/python bench/fields_attack.py [--calls 5] [--keys 46000]

A loopback upstream answers about 1 MB of JSON: one object of --keys distinct members. The call asks
for 64 wildcard paths (`*/f0` … `*/f63`), so every member of the answer moves every path one step. It
goes through `Caller.call` (send, parse, redact, `fields`, budget) on this process's event loop while a
ticker on the same loop wakes every millisecond; reported per call:

- the loop blocked: the longest gap between two ticks during the call (what every other call of the
  gateway waited), and the call's wall time (these calls run first, without tracemalloc);
- memory: the peak one call allocated above what was held before it (tracemalloc, in calls of their
  own), and the process's peak RSS growth over all the calls.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import resource
import statistics
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.upstream import Reply, Upstream

from specbridge.call import Caller
from specbridge.config import AnswersConfig, ApiConfig, AuthConfig, EgressConfig
from specbridge.document import from_data
from specbridge.tools import convert

DOCUMENT: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "Map", "version": "1"},
    "paths": {
        "/map": {
            "get": {
                "operationId": "getMap",
                "responses": {
                    "200": {"description": "A map", "content": {"application/json": {"schema": {}}}}
                },
            }
        }
    },
}
PATHS = [f"*/f{index}" for index in range(64)]


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def _one(caller: Caller, paths: list[str]) -> tuple[float, float, float]:
    """(longest loop gap, wall time, peak allocation above the start) of one call, in s, s, MB."""
    gaps: list[float] = []
    done = asyncio.Event()

    async def tick() -> None:
        last = time.perf_counter()
        while not done.is_set():
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    ticker = asyncio.create_task(tick())
    await asyncio.sleep(0.01)
    tracing = tracemalloc.is_tracing()
    if tracing:
        tracemalloc.reset_peak()
    before, _ = tracemalloc.get_traced_memory()
    start = time.perf_counter()
    result = await caller.call("getMap", {"fields": paths})
    wall = time.perf_counter() - start
    _, peak = tracemalloc.get_traced_memory()
    done.set()
    await ticker
    assert not result.is_error, result.text[:300]
    return max(gaps), wall, (peak - before) / 1e6


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=5)
    parser.add_argument("--keys", type=int, default=46_000)
    options = parser.parse_args()
    logging.getLogger("asyncio").setLevel(logging.CRITICAL)  # the upstream's connections cut at its stop
    answer = {f"k{index:06d}": f"v{index:08d}" for index in range(options.keys)}  # 22 bytes a member
    body = orjson.dumps(answer)
    with Upstream() as upstream:
        upstream.route("/map", Reply(200, [("Content-Type", "application/json")], body))
        api = ApiConfig(
            name="map",
            spec="map.yaml",
            base_url=upstream.url,
            auth=AuthConfig(),
            egress=EgressConfig(allow=(upstream.address,)),
            answers=AnswersConfig(select=True),
        )
        caller = Caller(api, convert(from_data(DOCUMENT, source="map.yaml")))
        await caller.call("getMap", {"fields": ["k000000"]})  # connections, TLS context, imports
        rss = _rss_mb()
        print(f"answer: {len(body):,} bytes, {options.keys:,} distinct keys")
        print(f"calls: {options.calls} timed, then {options.calls} under tracemalloc, for each selection")
        for label, paths in (
            ("64 paths `*/fN` (the attack)", PATHS),
            ("one named path `k000000`", ["k000000"]),
        ):
            timed = [await _one(caller, paths) for _ in range(options.calls)]
            tracemalloc.start()
            traced = [await _one(caller, paths) for _ in range(options.calls)]
            tracemalloc.stop()
            gaps, walls, _ = zip(*timed, strict=True)
            peaks = [peak for _, _, peak in traced]
            print(f"\nfields: {label}")
            print(
                f"  loop blocked (longest tick gap): median {statistics.median(gaps) * 1000:,.0f} ms, "
                f"max {max(gaps) * 1000:,.0f} ms; call wall time: median {statistics.median(walls) * 1000:,.0f} ms"
            )
            print(
                f"  peak allocated by one call: median {statistics.median(peaks):,.0f} MB, max {max(peaks):,.0f} MB"
            )
        await caller.aclose()
    print(f"\nmax RSS growth over all the calls: {_rss_mb() - rss:,.0f} MB")


if __name__ == "__main__":
    asyncio.run(main())
