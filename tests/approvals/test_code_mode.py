"""Approvals inside a script, through the official MCP client: a call that needs a person pauses the
script (kept in the store), the person answers, `execute` with `resume` goes on from there: the call it
paused on gets its outcome, sent once, and the calls before the pause are not made again. On SQLite,
PostgreSQL and Redis, and across two gateway processes on one store."""

from __future__ import annotations

import re
import threading
from pathlib import Path

import anyio
import httpx2
import mcp_types as types
import pytest

from specbridge.access import key_sha256
from tests.support.codemode import code_config, shop_routes
from tests.support.gateway import IN_PROCESS, http_client, in_process_gateway, text
from tests.support.processes import admin_post, gateway_processes
from tests.support.stores import namespaces, shared_store, store_url
from tests.support.upstream import RecordedRequest, Reply, Upstream, json_response

__all__ = ["namespaces", "shared_store", "store_url"]
ADMIN_KEY = "sba_code-mode-admin-key-of-the-approval-tests"
REFUND = """\
customer = api.findCustomers(email="ada@example.com")[0]
orders = api.listOrders(customerId=customer["id"])["items"]
print("refunding", orders[-1]["id"])
refund = api.refundOrder(orderId=orders[-1]["id"], reason="the mugs arrived broken")
print("done:", refund["status"])
refund["refunded"]
"""
BEFORE = ["/customers", "/customers/c7/orders"]


@pytest.fixture(autouse=True)
def upstream_routes(upstream: Upstream) -> None:
    shop_routes(upstream)


def paused_at(result: types.CallToolResult) -> tuple[str, str]:
    """The approval id and the script id a paused script's answer gives."""
    assert result.is_error is True and text(result).startswith("[approval-pending]"), text(result)
    approval = re.search(r"\(approval ([A-Za-z0-9_-]{20,})\)", text(result))
    script = re.search(r"resume '([A-Za-z0-9_-]{22})'", text(result))
    assert approval is not None and script is not None, text(result)
    return approval.group(1), script.group(1)


async def admin(asgi: httpx2.ASGITransport, method: str, path: str, body: object = None) -> httpx2.Response:
    """An admin API request to an in-process gateway."""
    async with httpx2.AsyncClient(transport=asgi, base_url=IN_PROCESS) as local:
        return await local.request(method, path, json=body, headers={"Authorization": f"Bearer {ADMIN_KEY}"})


def approvals_config(tmp_path: Path, upstream: Upstream, store: str, *, send: str = "on_retry") -> Path:
    top = f"admins:\n  ops: {{key_sha256: {key_sha256(ADMIN_KEY)}}}\napprovals: {{wait: 0, send: {send}}}\n"
    return code_config(tmp_path, upstream, store=f"'{store}'", top=top)


async def test_a_script_pauses_at_an_approval_and_goes_on_once_approved_without_repeating_calls(
    tmp_path: Path, upstream: Upstream, store_url: str
) -> None:
    config = approvals_config(tmp_path, upstream, store_url)
    async with in_process_gateway(config) as (asgi, _):
        async with http_client(f"{IN_PROCESS}/mcp", transport=asgi) as client:
            paused = await client.call_tool("execute", {"code": REFUND})
            approval, script = paused_at(paused)
            assert "paused at line 4" in text(paused)
            still = await client.call_tool("execute", {"resume": script})
            assert paused_at(still) == (approval, script)  # not answered yet: the same approval, paused again
            assert [request.path for request in upstream.requests] == BEFORE
            assert (await admin(asgi, "POST", f"/admin/approvals/{approval}/approve")).status_code == 200
        async with http_client(f"{IN_PROCESS}/mcp", transport=asgi) as client:  # a new session goes on
            resumed = await client.call_tool("execute", {"resume": script})
            repeated = await client.call_tool("execute", {"resume": script})
    assert resumed.is_error is False, text(resumed)
    assert resumed.structured_content == {"result": "o40", "printed": "refunding o40\ndone: refunded\n"}
    assert text(repeated) == text(resumed)  # how it ended, for a repeated resume; nothing sent again
    assert [request.path for request in upstream.requests] == [*BEFORE, "/orders/o40/refund"]


async def test_an_approved_call_sent_on_answer_is_handed_to_the_resumed_script(
    tmp_path: Path, upstream: Upstream
) -> None:
    sent = threading.Event()

    def refund(request: RecordedRequest) -> Reply:
        sent.set()
        return json_response({"refunded": "o40", "status": "refunded"})

    upstream.route("/orders/o40/refund", refund)
    config = approvals_config(tmp_path, upstream, f"sqlite:///{tmp_path / 'state.db'}", send="on_answer")
    async with (
        in_process_gateway(config) as (asgi, _),
        http_client(f"{IN_PROCESS}/mcp", transport=asgi) as client,
    ):
        approval, script = paused_at(await client.call_tool("execute", {"code": REFUND}))
        assert (await admin(asgi, "POST", f"/admin/approvals/{approval}/approve")).status_code == 200
        assert await anyio.to_thread.run_sync(sent.wait, 30)  # the gateway sent it: nobody waited
        resumed = await client.call_tool("execute", {"resume": script})
    assert resumed.is_error is False, text(resumed)
    assert resumed.structured_content == {"result": "o40", "printed": "refunding o40\ndone: refunded\n"}
    assert [request.path for request in upstream.requests] == [*BEFORE, "/orders/o40/refund"]


async def test_a_rejection_raises_in_the_resumed_script_with_the_persons_reason(
    tmp_path: Path, upstream: Upstream
) -> None:
    config = approvals_config(tmp_path, upstream, f"sqlite:///{tmp_path / 'state.db'}")
    redraft = REFUND.replace(
        'refund = api.refundOrder(orderId=orders[-1]["id"], reason="the mugs arrived broken")',
        'try:\n    refund = api.refundOrder(orderId=orders[-1]["id"], reason="two mugs broken")\n'
        'except RuntimeError as error:\n    refund = {"status": str(error)[:40], "refunded": None}',
    )
    reason = {"reason": "ask the customer first"}
    async with (
        in_process_gateway(config) as (asgi, _),
        http_client(f"{IN_PROCESS}/mcp", transport=asgi) as client,
    ):
        approval, script = paused_at(await client.call_tool("execute", {"code": REFUND}))
        assert (await admin(asgi, "POST", f"/admin/approvals/{approval}/reject", reason)).status_code == 200
        ended = await client.call_tool("execute", {"resume": script})
        other_approval, other = paused_at(await client.call_tool("execute", {"code": redraft}))
        assert (
            await admin(asgi, "POST", f"/admin/approvals/{other_approval}/reject", reason)
        ).status_code == 200
        caught = await client.call_tool("execute", {"resume": other})
    assert ended.is_error is True and text(ended).startswith("[approval-rejected]")
    assert "ask the customer first" in text(ended) and "refunding o40" in text(ended)
    assert caught.is_error is False, text(caught)
    assert caught.structured_content == {
        "result": None,
        "printed": "refunding o40\ndone: [approval-rejected] a person rejected th\n",
    }
    assert "/orders/o40/refund" not in [request.path for request in upstream.requests]


async def test_only_its_client_goes_on_with_a_script_and_an_unknown_id_is_not_found(
    tmp_path: Path, upstream: Upstream
) -> None:
    keys = {"ann": "sbk_code-key-of-ann", "bob": "sbk_code-key-of-bob"}
    clients = "clients:\n" + "".join(
        f'  {name}: {{key_sha256: "{key_sha256(key)}", apis: [shop]}}\n' for name, key in keys.items()
    )
    config = approvals_config(tmp_path, upstream, f"sqlite:///{tmp_path / 'state.db'}")
    config.write_text(config.read_text(encoding="utf-8") + clients, encoding="utf-8")
    async with in_process_gateway(config) as (asgi, _):
        async with http_client(f"{IN_PROCESS}/mcp", key=keys["ann"], transport=asgi) as ann:
            _, script = paused_at(await ann.call_tool("execute", {"code": REFUND}))
        async with http_client(f"{IN_PROCESS}/mcp", key=keys["bob"], transport=asgi) as bob:
            stolen = await bob.call_tool("execute", {"resume": script})
            made_up = await bob.call_tool("execute", {"resume": "x" * 22})
            odd = await bob.call_tool("execute", {"resume": "../../etc"})
    for result in (stolen, made_up, odd):
        assert result.is_error is True and text(result).startswith("[script-not-found]"), text(result)


async def test_a_script_paused_on_one_instance_goes_on_on_another_sharing_the_store(
    tmp_path: Path, upstream: Upstream, shared_store: str
) -> None:
    config = approvals_config(tmp_path, upstream, shared_store)
    async with gateway_processes(config, 2) as (one, two):
        async with http_client(f"{one.base}/mcp") as agent:
            approval, script = paused_at(await agent.call_tool("execute", {"code": REFUND}))
        assert (
            await admin_post(two.base, ADMIN_KEY, f"/admin/approvals/{approval}/approve")
        ).status_code == 200
        ends: list[types.CallToolResult] = []

        async def resume(base: str) -> None:
            async with http_client(f"{base}/mcp") as agent:
                ends.append(await agent.call_tool("execute", {"resume": script}))

        with anyio.fail_after(60):
            async with anyio.create_task_group() as tasks:  # both at once: one goes on, never twice
                tasks.start_soon(resume, two.base)
                tasks.start_soon(resume, one.base)
        async with http_client(f"{one.base}/mcp") as agent:
            later = await agent.call_tool("execute", {"resume": script})
    done = [result for result in ends if not result.is_error]
    assert len(done) >= 1, [text(result) for result in ends]
    assert done[0].structured_content == {"result": "o40", "printed": "refunding o40\ndone: refunded\n"}
    others = [text(result) for result in ends if result.is_error]
    assert all(other.startswith("[script-running]") for other in others), others
    assert later.structured_content is None and text(later) == text(done[0])
    assert [request.path for request in upstream.requests] == [*BEFORE, "/orders/o40/refund"]
