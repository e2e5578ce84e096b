"""`approvals.send: on_answer` through the gateway (in process, the SDK client, a real upstream and a real
webhook receiver on loopback, SQLite, PostgreSQL and Redis stores): a person approves after the agent
stopped waiting, and the gateway makes the call at once, exactly once; the agent's same call and
`get_call_result` get the result and the client's webhook gets `call.completed`. An approval given on
the command line while no gateway runs is sent by the next gateway to start."""

from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path

import anyio
import pytest
from standardwebhooks import Webhook

from specbridge.tools import APPROVAL_NOTE
from tests.support.approvals import ORDER, admin, approval_config, approval_id
from tests.support.gateway import IN_PROCESS, http_client, in_process_gateway, text
from tests.support.stores import namespaces, store_url
from tests.support.upstream import RecordedRequest, Reply, Upstream, json_response
from tests.support.webhooks import webhook_receiver

__all__ = ["namespaces", "store_url"]

MCP = f"{IN_PROCESS}/mcp"


class Orders:
    """The upstream's order endpoint: answers 201, and says when a request arrived."""

    def __init__(self) -> None:
        self.arrived = threading.Event()

    def __call__(self, request: RecordedRequest) -> Reply:
        self.arrived.set()
        return json_response({"id": "o1"}, status=201)


@pytest.fixture
def orders(upstream: Upstream) -> Orders:
    found = Orders()
    upstream.route("/shops/s1/orders", found)
    return found


async def test_an_approval_given_after_the_agent_stopped_waiting_is_sent_by_the_gateway_once(
    tmp_path: Path,
    upstream: Upstream,
    store_url: str,
    orders: Orders,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with webhook_receiver(monkeypatch) as hooks:
        config = approval_config(tmp_path, upstream, store_url)
        config.write_text(config.read_text(encoding="utf-8") + hooks.clients, encoding="utf-8")
        async with (
            in_process_gateway(config) as (asgi, _),
            http_client(MCP, key=hooks.key, transport=asgi) as agent,
        ):
            listed = {tool.name: tool for tool in (await agent.list_tools()).tools}
            pending = await agent.call_tool("createOrder", ORDER)  # answers pending; the agent moves on
            identifier = approval_id(pending)
            answered = await admin(asgi, "POST", f"/admin/approvals/{identifier}/approve")
            assert answered.status_code == 200, answered.text
            # the gateway sends it now (the sweep this answer started; bounded), and tells the client
            assert await anyio.to_thread.run_sync(orders.arrived.wait, 20)
            assert await anyio.to_thread.run_sync(hooks.delivered.wait, 20)
            again = await agent.call_tool("createOrder", ORDER)  # the same call, later
            by_id = await agent.call_tool("get_call_result", {"call_id": identifier})  # as often as asked
            shown = (await admin(asgi, "GET", f"/admin/approvals/{identifier}")).json()
        (delivery,) = hooks.upstream.requests
    assert text(pending).startswith("[approval-pending]") and "as soon as it is approved" in text(pending)
    assert (listed["createOrder"].description or "").split("\n\n")[-2] == APPROVAL_NOTE
    assert "get_call_result" in listed
    assert len(upstream.requests) == 1
    assert by_id.structured_content == again.structured_content == {"id": "o1"}
    assert (shown["status"], shown["upstream_status"]) == ("done", 201)
    payload = Webhook(hooks.secret).verify(delivery.body, delivery.headers)
    assert (payload["type"], payload["data"]["call_id"]) == ("call.completed", identifier)
    assert json.loads(payload["data"]["result"]["text"]) == {"id": "o1"}


async def test_an_approval_given_on_the_command_line_with_no_gateway_running_is_sent_when_one_starts(
    tmp_path: Path, upstream: Upstream, store_url: str, orders: Orders
) -> None:
    config = approval_config(tmp_path, upstream, store_url)
    async with in_process_gateway(config) as (asgi, _), http_client(MCP, transport=asgi) as agent:
        identifier = approval_id(await agent.call_tool("createOrder", ORDER))
    # no gateway runs now: the operator approves on the command line
    done = await anyio.run_process(
        [sys.executable, "-m", "specbridge", "approvals", "approve", identifier, "--config", str(config)],
        env={**os.environ},
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()
    (line,) = [json.loads(entry) for entry in done.stderr.decode().splitlines()]
    assert (line["event"], line["via"], line["approval"], line["answer"]) == (
        "approval answered",
        "cli",
        identifier,
        "approve",
    )
    assert "sends it now" in done.stdout.decode()
    assert upstream.requests == []
    async with in_process_gateway(config) as (asgi, _), http_client(MCP, transport=asgi) as agent:
        assert await anyio.to_thread.run_sync(orders.arrived.wait, 20)  # the gateway's first sweep
        result = await agent.call_tool("createOrder", ORDER)
    assert result.structured_content == {"id": "o1"}
    assert len(upstream.requests) == 1


async def test_two_gateways_on_one_store_send_an_approval_given_on_either_once(
    tmp_path: Path, upstream: Upstream, store_url: str, orders: Orders
) -> None:
    config = approval_config(tmp_path, upstream, store_url)
    async with (
        in_process_gateway(config) as (one, first),
        in_process_gateway(config) as (two, second),
        http_client(MCP, transport=one) as agent,
    ):
        identifier = approval_id(await agent.call_tool("createOrder", ORDER))
        assert (await admin(two, "POST", f"/admin/approvals/{identifier}/approve")).status_code == 200
        assert await anyio.to_thread.run_sync(orders.arrived.wait, 20)
        with anyio.fail_after(20):  # the send ends; both sweep again and find nothing left to send
            while (await admin(one, "GET", f"/admin/approvals/{identifier}")).json()["status"] != "done":
                await anyio.sleep(0.05)
        swept = [
            await gateway.calls.sender.sweep(lambda gateway=gateway: gateway.states)
            for gateway in (first, second)
        ]
        result = await agent.call_tool("createOrder", ORDER)
    assert swept == [0, 0]
    assert result.structured_content == {"id": "o1"}
    assert len(upstream.requests) == 1
