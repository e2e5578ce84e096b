"""A seeded fuzz of the gateway over Streamable HTTP: mutated arguments and malformed params for the
example shop API (always) and a few large corpus documents (when the corpus is there). No call may end
in JSON-RPC -32603, an HTTP 500, or a traceback / error record in the logs."""

from __future__ import annotations

import logging
import random
from pathlib import Path
from typing import Any

import anyio
import pytest

from specbridge import examples
from tests.gateway._rawrpc import RawSession
from tests.support.gateway import running_gateway
from tests.support.mutate import mutate
from tests.support.upstream import Upstream

SHOP = Path(examples.__file__).parent / "shop.openapi.yaml"
CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus"
CORPUS_DOCUMENTS = {
    "openai": "openai_openapi.yaml",  # large unions (`input`, `tools`)
    "adyen": "adyen_CheckoutService-v71.yaml",  # a 58-branch union
    "notion": "notion_openapi.json",
}
SESSIONS = 4


def write_config(directory: Path, upstream: Upstream, apis: dict[str, Path]) -> Path:
    lines = ["apis:"]
    for name, spec in apis.items():
        lines += [
            f"  {name}:",
            f"    spec: {spec}",
            f"    base_url: {upstream.url}/v1",
            f'    egress: {{allow: ["{upstream.address}"]}}',
            '    search: "off"',
        ]
    path = directory / "specbridge.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def malformed(name: str, rng: random.Random) -> tuple[str, Any]:
    return rng.choice(
        [
            ("tools/call", {"name": name, "arguments": rng.choice(["text", [1, 2], 3, True])}),
            ("tools/call", {"name": rng.choice([7, None, [], {}]), "arguments": {}}),
            ("tools/call", {"arguments": {}}),
            ("tools/call", {"name": name, "arguments": {}, "_meta": rng.choice(["m", 1, []])}),
            ("tools/call", {"name": name + "-unknown", "arguments": {}}),
            ("tools/list", {"cursor": rng.choice([3, [], {}, "not-a-cursor"])}),
        ]
    )


async def fuzz(base: str, apis: list[str], calls: int, seed: int) -> dict[str, int]:
    """`calls` requests over SESSIONS sessions per API; returns the count of each kind of answer."""
    rng = random.Random(seed)
    outcomes: dict[str, int] = {}
    tools: dict[str, list[dict[str, Any]]] = {}
    for api in apis:
        async with RawSession(f"{base}/{api}/mcp") as probe:
            listed: list[dict[str, Any]] = []
            params: dict[str, Any] = {}
            while True:
                _, body = await probe.call("tools/list", params)
                listed += body["result"]["tools"]
                if not body["result"].get("nextCursor"):
                    break
                params = {"cursor": body["result"]["nextCursor"]}
            tools[api] = listed
    plan = [(api, tool) for api, listed in tools.items() for tool in listed]
    requests = []
    for _ in range(calls):
        api, tool = rng.choice(plan)
        if rng.random() < 0.15:
            requests.append((api, *malformed(tool["name"], rng)))
        else:
            arguments = mutate(tool["inputSchema"], rng)
            arguments = arguments if isinstance(arguments, dict) else {"value": arguments}
            requests.append((api, "tools/call", {"name": tool["name"], "arguments": arguments}))

    async def worker(mine: list[tuple[str, str, Any]]) -> None:
        sessions = {api: RawSession(f"{base}/{api}/mcp") for api in apis}
        for session in sessions.values():
            await session.__aenter__()
        try:
            for api, method, params in mine:
                status, body = await sessions[api].call(method, params)
                assert status != 500, (method, params, body)
                key = f"HTTP {status}"
                if status == 200 and isinstance(body, dict):
                    if "error" in body:
                        key = f"JSON-RPC {body['error']['code']}"
                    elif body["result"].get("isError"):
                        key = body["result"]["content"][0]["text"].split("]", 1)[0] + "]"
                    else:
                        key = "result"
                assert key != "JSON-RPC -32603", (method, str(params)[:300], body)
                outcomes[key] = outcomes.get(key, 0) + 1
        finally:
            for session in sessions.values():
                await session.__aexit__(None, None, None)

    async with anyio.create_task_group() as tasks:
        for number in range(SESSIONS):
            tasks.start_soon(worker, requests[number::SESSIONS])
    return outcomes


def assert_clean_logs(records: list[logging.LogRecord]) -> None:
    faults = [r for r in records if r.levelno >= logging.ERROR or r.exc_info is not None]
    assert faults == [], [f"{r.name}: {r.getMessage()}" for r in faults[:5]]


async def test_fuzzed_calls_to_the_example_shop_never_end_in_an_internal_error(
    tmp_path: Path, upstream: Upstream, caplog: pytest.LogCaptureFixture
) -> None:
    config = write_config(tmp_path, upstream, {"shop": SHOP})
    caplog.set_level(logging.INFO)
    with anyio.fail_after(120):
        async with running_gateway(config) as (base, gateway):
            outcomes = await fuzz(base, ["shop"], calls=1_500, seed=14)
            assert_clean_logs(caplog.records)
            assert "gateway-internal" not in gateway.metrics.render()
    assert outcomes.get("JSON-RPC -32602", 0) > 0 and outcomes.get("[arguments-invalid]", 0) > 0
    assert outcomes.get("result", 0) > 0  # some calls passed the check and were sent


@pytest.mark.skipif(not CORPUS.is_dir(), reason="the real-API corpus (shared/corpus) is not on this machine")
async def test_fuzzed_calls_to_corpus_tools_with_large_unions_never_end_in_an_internal_error(
    tmp_path: Path, upstream: Upstream, caplog: pytest.LogCaptureFixture
) -> None:
    config = write_config(tmp_path, upstream, {name: CORPUS / doc for name, doc in CORPUS_DOCUMENTS.items()})
    caplog.set_level(logging.INFO)
    with anyio.fail_after(180):
        async with running_gateway(config) as (base, gateway):
            outcomes = await fuzz(base, list(CORPUS_DOCUMENTS), calls=1_500, seed=9)
            assert_clean_logs(caplog.records)
            assert "gateway-internal" not in gateway.metrics.render()
    assert outcomes.get("[arguments-invalid]", 0) > 0
