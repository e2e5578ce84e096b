"""The Tasks extension (SEP-2663) with the official SDK client: a long call and a call waiting for a
person become tasks for a 2026-07-28 client that declares the extension, on the same store record
`get_call_result` reads; `tasks/get` and `tasks/cancel` as the extension says; two gateway processes on
one store serve one task; a client without the extension still gets `call-pending`."""

from __future__ import annotations

import re
from pathlib import Path

import anyio
import mcp_types as types
import pytest

from specbridge.access import key_sha256, new_key
from tests.support.gateway import IN_PROCESS, http_client, in_process_gateway, write_config
from tests.support.processes import gateway_processes
from tests.support.stores import namespaces, store_url
from tests.support.tasks import Tasks, cancel_task, get_task
from tests.support.upstream import Gate, Upstream, json_response

__all__ = ["namespaces", "store_url"]

MODERN = "2026-07-28"
ORDER = {"shopId": "s1", "product": "p1", "quantity": 2}
KEY = new_key()
CLIENTS = f"clients:\n  bot: {{key_sha256: {key_sha256(KEY)}, apis: [shop]}}\n"


def _text(result: types.CallToolResult) -> str:
    return " ".join(block.text for block in result.content if isinstance(block, types.TextContent))


def _config(tmp_path: Path, upstream: Upstream, store: str, top: str, tools: str = "") -> Path:
    path = write_config(tmp_path, upstream, tools=tools, clients=CLIENTS)
    path.write_text(path.read_text(encoding="utf-8") + f"store: '{store}'\n{top}", encoding="utf-8")
    return path


async def test_a_long_call_becomes_a_task_the_client_follows_to_the_apis_answer(
    tmp_path: Path, upstream: Upstream
) -> None:
    gate = Gate()
    upstream.route("/shops/s1/orders", gate.reply({"id": "o1"}, status=201))
    path = _config(
        tmp_path, upstream, f"sqlite:///{tmp_path / 'state.db'}", "calls: {long: true, wait: 0.1}\n"
    )
    tasks = Tasks()
    async with (
        in_process_gateway(path) as (asgi, _),
        http_client(f"{IN_PROCESS}/mcp", key=KEY, transport=asgi, mode=MODERN, extensions=[tasks]) as client,
    ):
        done: list[types.CallToolResult] = []

        async def call() -> None:
            done.append(await client.call_tool("createOrder", ORDER))

        async with anyio.create_task_group() as group:
            group.start_soon(call)
            with anyio.fail_after(20):
                await tasks.polling.wait()  # the call answered with a task, and the client polls it
            gate.open.set()
        (task,) = tasks.created
        by_id = await client.call_tool("get_call_result", {"call_id": task.task_id.split(".")[0]})
    (result,) = done
    assert task.status == "working" and task.ttl_ms == 86_400_000 and task.poll_interval_ms == 1000
    assert re.fullmatch(r"[0-9a-f]{32}\.[0-9a-f]+", task.task_id)
    assert tasks.polled[0] == "working" and tasks.polled[-1] == "completed"
    assert not result.is_error and result.structured_content == {"id": "o1"}
    assert by_id.structured_content == {"id": "o1"}  # one record: the task's is get_call_result's
    assert [request.path for request in upstream.requests] == ["/shops/s1/orders"]  # sent once


async def test_a_client_without_the_extension_still_gets_call_pending(
    tmp_path: Path, upstream: Upstream
) -> None:
    gate = Gate()
    upstream.route("/shops/s1/orders", gate.reply({"id": "o1"}, status=201))
    path = _config(
        tmp_path, upstream, f"sqlite:///{tmp_path / 'state.db'}", "calls: {long: true, wait: 0.1}\n"
    )
    async with (
        in_process_gateway(path) as (asgi, _),
        http_client(f"{IN_PROCESS}/mcp", key=KEY, transport=asgi, mode=MODERN) as client,
    ):
        pending = await client.call_tool("createOrder", ORDER)
        gate.open.set()
    assert pending.is_error and _text(pending).startswith("[call-pending]")


async def test_a_call_waiting_for_a_person_is_a_working_task_and_cancel_says_it_cannot_stop_it(
    tmp_path: Path, upstream: Upstream
) -> None:
    upstream.route("/shops/s1/orders", json_response({"id": "o1"}, status=201))
    path = _config(
        tmp_path,
        upstream,
        f"sqlite:///{tmp_path / 'state.db'}",
        "approvals: {wait: 0.1}\n",
        tools="tools:\n  createOrder: {requires_approval: true}\n",
    )
    tasks = Tasks(follow=False)
    async with (
        in_process_gateway(path) as (asgi, _),
        http_client(f"{IN_PROCESS}/mcp", key=KEY, transport=asgi, mode=MODERN, extensions=[tasks]) as client,
    ):
        handed = await client.call_tool("createOrder", ORDER)
        task_id = _text(handed)
        polled = await get_task(client.session, task_id)
        cancelled = await cancel_task(client.session, task_id)
        with pytest.raises(Exception, match="no task") as unknown:
            await get_task(client.session, "0" * 32 + ".1")
    (task,) = tasks.created
    assert task.status == polled.status == "working" and task.ttl_ms == 86_400_000
    assert "waiting for a person's approval" in (polled.status_message or "")
    assert cancelled.meta is not None and cancelled.meta["specbridge/cancel"].startswith("not cancelled")
    assert unknown.value is not None and upstream.requests == []


async def test_two_gateway_processes_on_one_store_serve_one_task(
    tmp_path: Path, upstream: Upstream, store_url: str
) -> None:
    if store_url.startswith("sqlite"):
        pytest.skip("two processes share a PostgreSQL or Redis store")
    gate = Gate()
    upstream.route("/shops/s1/orders", gate.reply({"id": "o1"}, status=201))
    path = _config(tmp_path, upstream, store_url, "calls: {long: true, wait: 0.1}\n")
    tasks = Tasks(follow=False)
    async with gateway_processes(path, 2) as (first, second):
        async with http_client(f"{first.base}/mcp", key=KEY, mode=MODERN, extensions=[tasks]) as client:
            task_id = _text(await client.call_tool("createOrder", ORDER))
        async with http_client(f"{second.base}/mcp", key=KEY, mode=MODERN, extensions=[Tasks()]) as other:
            running = await get_task(other.session, task_id)
            gate.open.set()
            with anyio.fail_after(20):
                while (done := await get_task(other.session, task_id)).status != "completed":
                    await anyio.sleep(0.05)  # the task's own poll interval is 1 s
    assert running.status == "working"
    assert done.result is not None and done.result["structuredContent"] == {"id": "o1"}
