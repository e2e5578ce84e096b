"""The operator's commands against a running gateway's store: `specbridge keys new --admin` makes the key
the gateway's admin API takes, and `specbridge approvals list|show|approve|reject` (each its own process)
answer the calls an agent is waiting on in the gateway process, on SQLite, PostgreSQL and Redis."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import anyio
import httpx
import mcp_types as types
import pytest

from tests.gateway._harness import http_client, write_config
from tests.gateway._process import gateway_process
from tests.gateway.test_gateway_approvals import text
from tests.store._backends import namespaces, store_url
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
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(call, "approved", APPROVED)
                tasks.start_soon(call, "rejected", REJECTED)
                while True:  # bounded above: both calls store their approvals at once, then wait
                    listed = json.loads(
                        await specbridge("approvals", "list", "--config", str(config), "--format", "json")
                    )
                    if len(listed["approvals"]) == 2:
                        break
                by_quantity = {entry["arguments"]["quantity"]: entry["id"] for entry in listed["approvals"]}
                shown = await specbridge("approvals", "show", by_quantity[1], "--config", str(config))
                assert "status:      pending" in shown and '"quantity": 1' in shown
                async with httpx.AsyncClient(base_url=running.base) as admin:  # the new key is an admin key
                    seen = await admin.get(
                        f"/admin/approvals/{by_quantity[9]}", headers={"Authorization": f"Bearer {admin_key}"}
                    )
                assert seen.status_code == 200 and seen.json()["status"] == "pending"
                approved = await specbridge("approvals", "approve", by_quantity[1], "--config", str(config))
                assert approved.startswith(f"approved {by_quantity[1]}")
                await specbridge(
                    "approvals",
                    "reject",
                    by_quantity[9],
                    "--reason",
                    "nine is too many",
                    "--config",
                    str(config),
                )
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
