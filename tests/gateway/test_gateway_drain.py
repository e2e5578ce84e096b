"""SIGTERM drains the gateway (`gateway/_drain.py`): `specbridge serve` in a process of its own, over
Streamable HTTP and over stdio, with the official SDK client. A keyed call on the wire when the signal
comes finishes and its result is stored (a retry on a restarted gateway gets it, nothing is sent
again); a call waiting for a person's approval ends at once with `gateway-stopping`, as does a new call;
`/healthz` answers 503 `draining` meanwhile; the stop is one info line, no error line; exit status 0."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import httpx
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from specbridge.store import Status, open_store
from tests.gateway._keys import KEY_SPEC
from tests.support.gateway import http_client, text, write_config
from tests.support.processes import gateway_process
from tests.support.upstream import Gate, Upstream, json_response

ORDER = {"shopId": "s1", "product": "p1", "quantity": 2, "idempotency_key": "order-1"}
PAYMENT = {"amount": 5}  # needs a person's approval
# Runs the gateway as its child with the same stdin and stdout, saying its process id and exit status.
WRAPPER = (
    "import subprocess, sys\n"
    "pid, rc, err, *command = sys.argv[1:]\n"
    "with open(err, 'w') as log:\n"
    "    child = subprocess.Popen(command, stderr=log)\n"
    "    open(pid, 'w').write(str(child.pid))\n"
    "    status = child.wait()\n"
    "open(rc, 'w').write(str(status))\n"
)


@pytest.fixture
def gate(upstream: Upstream) -> Gate:
    held = Gate(limit=60)
    upstream.route("/shops/s1/orders", held.reply({"id": "o1"}, status=201))
    upstream.route("/payments", json_response({"id": "pay1"}))
    return held


def drain_config(tmp_path: Path, upstream: Upstream) -> tuple[Path, str]:
    store = f"sqlite:///{tmp_path / 'state.db'}"
    path = write_config(
        tmp_path, upstream, spec=KEY_SPEC, tools="tools:\n  createPayment: {requires_approval: true}\n"
    )
    path.write_text(
        path.read_text(encoding="utf-8") + f"approvals: {{wait: 50}}\nstore: '{store}'\n", encoding="utf-8"
    )
    return path, store


async def until(check: Callable[[], Awaitable[bool]], seconds: float = 30) -> None:
    """Waits until `check()` holds, asking again with a growing pause; fails after `seconds`."""
    pause = 0.01
    with anyio.fail_after(seconds):
        while not await check():
            await anyio.sleep(pause)
            pause = min(pause * 2, 0.2)


async def waiting_for_a_person(store_url: str) -> bool:
    async with open_store(store_url) as store:
        return bool(await store.list_approvals(Status.PENDING))


def records(lines: list[str]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in lines if line.startswith("{")]


def check_stop_logged_once(lines: list[str]) -> None:
    logged = records(lines)
    stops = [record for record in logged if record["event"].startswith("stopping")]
    assert len(stops) == 1 and stops[0]["level"] == "info", stops
    assert [record for record in logged if record["level"] == "error"] == []
    last = logged[-1]  # the drain ends with a line that says the gateway stopped
    assert (last["event"], last["level"], last["after"]) == ("stopped", "info", "the drain"), last


async def test_sigterm_over_http_finishes_the_call_on_the_wire_and_ends_the_waiting_one(
    tmp_path: Path, upstream: Upstream, gate: Gate
) -> None:
    config, store = drain_config(tmp_path, upstream)
    results: dict[str, types.CallToolResult] = {}
    async with gateway_process(config) as gateway:
        mcp = f"{gateway.base}/mcp"

        async def call(name: str, tool: str, arguments: dict[str, Any]) -> None:
            async with http_client(mcp) as client:
                await client.list_tools()  # the SDK client checks results against them: listed first
                results[name] = await client.call_tool(tool, arguments)

        async def health() -> httpx.Response:
            async with httpx.AsyncClient(base_url=gateway.base, timeout=10) as client:
                return await client.get("/healthz")

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(call, "order", "createOrder", ORDER)
            tasks.start_soon(call, "payment", "createPayment", PAYMENT)
            with anyio.fail_after(30):
                await anyio.to_thread.run_sync(gate.arrived.wait, 30)  # the order is on the wire
            await until(lambda: waiting_for_a_person(store))  # the payment waits for a person
            assert (await health()).status_code == 200
            gateway.process.send_signal(signal.SIGTERM)
            await until(lambda: _is_draining(health))
            draining = await health()
            await call("late", "getProduct", {"id": "p1"})  # a new call while it drains
            await until(lambda: _has(results, "payment"))  # ended at once, before the order
            assert "order" not in results
            gate.open.set()
        with anyio.fail_after(30):
            await gateway.process.wait()
    assert draining.status_code == 503 and draining.json()["status"] == "draining"
    assert text(results["payment"]).startswith("[gateway-stopping]"), text(results["payment"])
    assert text(results["late"]).startswith("[gateway-stopping]"), text(results["late"])
    assert results["order"].structured_content == {"id": "o1"}, text(results["order"])
    assert gateway.process.returncode == 0
    check_stop_logged_once(gateway.stderr)
    async with gateway_process(config) as restarted, http_client(f"{restarted.base}/mcp") as client:
        retried = await client.call_tool("createOrder", ORDER)
    assert retried.structured_content == {"id": "o1"}, text(retried)  # the stored result
    assert [request.path for request in upstream.requests] == ["/shops/s1/orders"]


async def _is_draining(health: Callable[[], Awaitable[httpx.Response]]) -> bool:
    return (await health()).status_code == 503


async def _has(results: dict[str, types.CallToolResult], name: str) -> bool:
    return name in results


@contextlib.asynccontextmanager
async def stdio_gateway(config: Path, folder: Path) -> AsyncIterator[tuple[Client, Path, Path, Path]]:
    """The SDK client on `specbridge serve` over stdio (through WRAPPER); yields the client and the
    files where the gateway's process id, exit status and stderr arrive."""
    pid, rc, err = folder / "pid", folder / "rc", folder / "stderr"
    command = [sys.executable, "-m", "specbridge", "serve", "--config", str(config)]
    server = StdioServerParameters(
        command=sys.executable,
        args=["-c", WRAPPER, str(pid), str(rc), str(err), *command],
        env={**os.environ},
        cwd=str(config.parent),
    )
    async with Client(server, mode="legacy") as client:
        yield client, pid, rc, err


async def test_sigterm_over_stdio_finishes_the_call_on_the_wire_and_ends_the_waiting_one(
    tmp_path: Path, upstream: Upstream, gate: Gate
) -> None:
    config, store = drain_config(tmp_path, upstream)
    results: dict[str, types.CallToolResult] = {}
    async with stdio_gateway(config, tmp_path) as (client, pid, rc, err):
        await client.list_tools()  # the SDK client checks results against them: listed before the stop

        async def call(name: str, tool: str, arguments: dict[str, Any]) -> None:
            results[name] = await client.call_tool(tool, arguments)

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(call, "order", "createOrder", ORDER)
            tasks.start_soon(call, "payment", "createPayment", PAYMENT)
            with anyio.fail_after(30):
                await anyio.to_thread.run_sync(gate.arrived.wait, 30)
            await until(lambda: waiting_for_a_person(store))
            os.kill(int(pid.read_text()), signal.SIGTERM)
            await until(lambda: _has(results, "payment"))
            assert "order" not in results
            gate.open.set()
        await until(lambda: _exists(rc))
    assert text(results["payment"]).startswith("[gateway-stopping]"), text(results["payment"])
    assert results["order"].structured_content == {"id": "o1"}, text(results["order"])
    assert rc.read_text() == "0"
    check_stop_logged_once(err.read_text().splitlines())
    (tmp_path / "again").mkdir()
    async with stdio_gateway(config, tmp_path / "again") as (again, *_):
        retried = await again.call_tool("createOrder", ORDER)
    assert retried.structured_content == {"id": "o1"}, text(retried)
    assert [request.path for request in upstream.requests] == ["/shops/s1/orders"]


async def _exists(path: Path) -> bool:
    return path.exists() and path.read_text() != ""


async def test_sigterm_lets_a_running_long_call_finish_and_a_restarted_gateway_returns_its_result(
    tmp_path: Path, upstream: Upstream, gate: Gate
) -> None:
    config, _ = drain_config(tmp_path, upstream)
    config.write_text(
        config.read_text(encoding="utf-8") + "calls: {long: true, wait: 0.5}\n", encoding="utf-8"
    )
    order = {key: value for key, value in ORDER.items() if key != "idempotency_key"}
    async with gateway_process(config) as gateway:
        async with http_client(f"{gateway.base}/mcp") as client:
            await client.list_tools()
            pending = await client.call_tool("createOrder", order)
        with anyio.fail_after(30):
            await anyio.to_thread.run_sync(gate.arrived.wait, 30)
        gateway.process.send_signal(signal.SIGTERM)
        await until(lambda: _logged(gateway.stderr, "stopping"))
        assert gateway.process.returncode is None  # it waits for the long call
        gate.open.set()
        with anyio.fail_after(30):
            await gateway.process.wait()
    assert text(pending).startswith("[call-pending]"), text(pending)
    (call_id,) = re.findall(r"call id ([0-9a-f]{32})", text(pending))
    assert gateway.process.returncode == 0
    check_stop_logged_once(gateway.stderr)
    async with gateway_process(config) as restarted, http_client(f"{restarted.base}/mcp") as client:
        await client.list_tools()
        result = await client.call_tool("get_call_result", {"call_id": call_id})
    assert result.structured_content == {"id": "o1"}, text(result)
    assert [request.path for request in upstream.requests] == ["/shops/s1/orders"]


async def _logged(lines: list[str], event: str) -> bool:
    return any(record["event"].startswith(event) for record in records(lines))
