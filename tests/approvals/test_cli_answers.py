"""The operator's commands against a running gateway's store: `specbridge keys new --admin` makes the key
the gateway's admin API takes, and `specbridge approvals list|show|approve|reject` (each its own process)
answer the calls an agent is waiting on in the gateway process, on SQLite, PostgreSQL and Redis."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Awaitable
from pathlib import Path
from typing import Any

import anyio
import httpx
import mcp_types as types
import pytest

from tests.support.gateway import http_client, text, write_config
from tests.support.processes import gateway_process
from tests.support.stores import namespaces, store_url
from tests.support.upstream import Upstream, json_response

__all__ = ["namespaces", "store_url"]

APPROVED = {"shopId": "s1", "product": "p1", "quantity": 1}
REJECTED = {"shopId": "s1", "product": "p1", "quantity": 9}


@pytest.fixture(autouse=True)
def upstream_routes(upstream: Upstream) -> None:
    upstream.route("/shops/s1/orders", json_response({"id": "o1"}, status=201))


async def specbridge(*words: str) -> str:
    done = await anyio.run_process(
        [sys.executable, "-m", "specbridge", *words], env={**os.environ}, check=False
    )
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout.decode()


async def admin_pending(admin: httpx.AsyncClient, key: str) -> list[dict[str, Any]]:
    answer = await admin.get("/admin/approvals?status=pending", headers={"Authorization": f"Bearer {key}"})
    assert answer.status_code == 200, answer.text
    listed: list[dict[str, Any]] = answer.json()["approvals"]
    return listed


async def both(first: Awaitable[str], second: Awaitable[str]) -> tuple[str, str]:
    """The outputs of two commands run at the same time."""
    outputs: dict[int, str] = {}

    async def run(index: int, command: Awaitable[str]) -> None:
        outputs[index] = await command

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(run, 0, first)
        tasks.start_soon(run, 1, second)
    return outputs[0], outputs[1]


@pytest.fixture(scope="module")
def made() -> str:
    """`specbridge keys new --admin` once for the module: what it prints holds for every store."""
    done = subprocess.run(
        [sys.executable, "-m", "specbridge", "keys", "new", "--admin", "--admin-id", "alice"],
        capture_output=True,
        check=True,
        timeout=60,
    )
    return done.stdout.decode()


async def test_the_commands_answer_calls_waiting_in_a_running_gateway(
    tmp_path: Path, upstream: Upstream, store_url: str, made: str
) -> None:
    admin_key = made.splitlines()[0].removeprefix("admin key: ")
    config = write_config(tmp_path, upstream, tools="tools:\n  createOrder: {requires_approval: true}\n")
    config.write_text(
        config.read_text(encoding="utf-8")
        + made.split("# add to specbridge.yaml:\n")[1]
        + f"approvals: {{wait: 40}}\nstore: '{store_url}'\n",
        encoding="utf-8",
    )
    results: dict[str, types.CallToolResult] = {}
    async with gateway_process(config) as running:

        async def call(name: str, order: dict[str, object]) -> None:
            async with http_client(f"{running.base}/mcp") as client:  # one agent per call
                results[name] = await client.call_tool("createOrder", order)

        with anyio.fail_after(90):
            async with anyio.create_task_group() as tasks, httpx.AsyncClient(base_url=running.base) as admin:
                tasks.start_soon(call, "approved", APPROVED)
                tasks.start_soon(call, "rejected", REJECTED)
                # Both calls store their approvals, then wait for a person (bounded above). Looked for through
                # the admin API (the new key is an admin key): a request costs milliseconds, where each
                # `specbridge` process costs a second of CPU that the gateway, its store and the calls
                # waiting on them would lose on a busy machine.
                pending = await admin_pending(admin, admin_key)
                while len(pending) < 2:
                    pending = await admin_pending(admin, admin_key)
                by_quantity = {entry["arguments"]["quantity"]: entry["id"] for entry in pending}
                # The operator's commands from here on, two at a time (each pair is independent), so the
                # calls' wait for a person holds two process starts, not four.
                listed_now, shown = await both(
                    specbridge("approvals", "list", "--config", str(config), "--format", "json"),
                    specbridge("approvals", "show", by_quantity[1], "--config", str(config)),
                )
                assert sorted(entry["id"] for entry in json.loads(listed_now)["approvals"]) == sorted(
                    by_quantity.values()
                )
                assert "status:      pending" in shown and '"quantity": 1' in shown
                approved, _ = await both(
                    specbridge("approvals", "approve", by_quantity[1], "--config", str(config)),
                    specbridge(
                        "approvals",
                        "reject",
                        by_quantity[9],
                        "--reason",
                        "nine is too many",
                        "--config",
                        str(config),
                    ),
                )
                assert approved.startswith(f"approved {by_quantity[1]}")
        listed = json.loads(
            await specbridge(
                "approvals", "list", "--status", "all", "--config", str(config), "--format", "json"
            )
        )
    assert results["approved"].structured_content == {"id": "o1"}
    assert text(results["rejected"]).startswith("[approval-rejected]")
    assert "nine is too many" in text(results["rejected"])
    assert [request.path for request in upstream.requests] == ["/shops/s1/orders"]
    assert json.loads(upstream.requests[0].body) == {"product": "p1", "quantity": 1}
    statuses = {entry["id"]: entry["status"] for entry in listed["approvals"]}
    assert statuses == {by_quantity[1]: "done", by_quantity[9]: "rejected"}
    assert re.fullmatch(r"sba_\S+", admin_key)
