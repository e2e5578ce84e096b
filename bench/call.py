"""The time specbridge's call pipeline adds to one call.

    .venv/bin/python bench/call.py [--calls N]

1. In process, no network: check + bind + build + render of a canned answer, per call (median, p99).
2. End to end against a loopback upstream: `Caller.call` next to a bare `httpx.AsyncClient` GET of the
   same URL (keep-alive both), median and p99 per call.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import httpx
from tests.call._caller import api_config, toolset_for
from tests.support.upstream import Upstream, json_response

from specbridge.call import Caller, build_request
from specbridge.call._credential import Credential
from specbridge.call._render import Redactor, render
from specbridge.call._send import Answer
from specbridge.config import AuthConfig, Secret

ARGUMENTS = {"shopId": "s1", "items": [{"sku": "a", "qty": 2}, {"sku": "b", "qty": 1}], "currency": "EUR"}
ANSWER = {"id": "o-1", "status": "open", "lines": [{"sku": "a", "qty": 2}, {"sku": "b", "qty": 1}]}


def _stats(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered) * 1e3, ordered[int(len(ordered) * 0.99) - 1] * 1e3


def in_process(calls: int) -> tuple[float, float]:
    toolset = toolset_for()
    caller = Caller(api_config("https://api.example.com/v1"), toolset)
    tool = toolset.get("createOrder")
    assert tool is not None
    credential = Credential("bearer", "", "token-1234567890")
    redactor = Redactor.for_credential(credential)
    import orjson

    answer = Answer(200, httpx.Headers({"content-type": "application/json"}), orjson.dumps(ANSWER), False)
    samples = []
    for _ in range(calls):
        started = time.perf_counter()
        checked = caller.prepare(tool, ARGUMENTS)
        built = build_request(tool, checked, base_url="https://api.example.com/v1", credential=credential)
        built.to_httpx()
        render(answer, redactor)
        samples.append(time.perf_counter() - started)
    return _stats(samples)


async def end_to_end(calls: int) -> tuple[tuple[float, float], tuple[float, float]]:
    os.environ["BENCH_TOKEN"] = "token-1234567890"
    with Upstream() as upstream:
        upstream.route("/v1/shops/s1/orders", json_response(ANSWER))
        api = api_config(
            upstream.url + "/v1",
            allow=(upstream.address,),
            auth=AuthConfig(type="bearer", secret=Secret("env:BENCH_TOKEN")),
        )
        caller = Caller(api, toolset_for())
        ours, bare = [], []
        async with httpx.AsyncClient(trust_env=False) as client:
            url = upstream.url + "/v1/shops/s1/orders"
            for _ in range(20):  # warm up both
                await caller.call("createOrder", ARGUMENTS)
                await client.post(url, json=ARGUMENTS, headers={"Authorization": "Bearer token-1234567890"})
            for _ in range(calls):
                started = time.perf_counter()
                result = await caller.call("createOrder", ARGUMENTS)
                ours.append(time.perf_counter() - started)
                assert not result.is_error, result.text
                started = time.perf_counter()
                response = await client.post(
                    url, json=ARGUMENTS, headers={"Authorization": "Bearer token-1234567890"}
                )
                response.json()
                bare.append(time.perf_counter() - started)
        await caller.aclose()
        upstream.requests.clear()
    return _stats(ours), _stats(bare)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=2000)
    options = parser.parse_args()
    median, p99 = in_process(options.calls * 5)
    print(f"pipeline in process (check + build + render): median {median:.3f} ms, p99 {p99:.3f} ms")
    (ours_median, ours_p99), (bare_median, bare_p99) = asyncio.run(end_to_end(options.calls))
    print(f"specbridge Caller.call over loopback:        median {ours_median:.3f} ms, p99 {ours_p99:.3f} ms")
    print(f"bare httpx.AsyncClient over loopback:        median {bare_median:.3f} ms, p99 {bare_p99:.3f} ms")
    print(f"difference of medians:                       {ours_median - bare_median:+.3f} ms")


if __name__ == "__main__":
    main()
