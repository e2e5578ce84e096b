"""`approvals.by: client` end to end: the SDK client's elicitation callback is the person who answers,
through the gateway over Streamable HTTP, a real upstream on loopback and the SQLite store; a client
that cannot be asked gets the operator flow."""

from __future__ import annotations

import logging
from pathlib import Path

import anyio
import httpx
import mcp_types as types
import pytest
from mcp.client.session import ClientRequestContext

from tests.gateway._elicit import ADMIN_KEY, CLIENT_KEY, ORDER, User, elicit_config
from tests.support.approvals import approval_id
from tests.support.gateway import http_client, running_gateway, text
from tests.support.upstream import Upstream, json_response


@pytest.fixture(autouse=True)
def upstream_routes(upstream: Upstream) -> None:
    upstream.route("/shops/s1/orders", json_response({"id": "o1"}, status=201))


async def approvals(base: str) -> list[dict[str, object]]:
    async with httpx.AsyncClient(base_url=base) as admin:
        answer = await admin.get(
            "/admin/approvals?status=all", headers={"Authorization": f"Bearer {ADMIN_KEY}"}
        )
    listed: list[dict[str, object]] = answer.json()["approvals"]
    return listed


ERAS = ["legacy", "2026-07-28"]  # elicitation during the call / the input-required round trip


@pytest.mark.parametrize("mode", ERAS)
async def test_the_clients_user_accepts_and_the_call_is_sent_once_recorded_as_theirs(
    tmp_path: Path, upstream: Upstream, mode: str
) -> None:
    user = User("accept")
    async with (
        running_gateway(elicit_config(tmp_path, upstream)) as (base, _),
        http_client(f"{base}/mcp", key=CLIENT_KEY, mode=mode, elicitation_callback=user) as client,
    ):
        result = await client.call_tool("createOrder", ORDER)
        listed = await approvals(base)
    assert result.is_error is False
    assert result.structured_content == {"id": "o1"}
    assert [request.path for request in upstream.requests] == ["/shops/s1/orders"]
    assert len(user.asked) == 1
    assert (
        "createOrder" in user.asked[0]
        and '"quantity":2' in user.asked[0]
        and '"path.shopId":"s1"' in user.asked[0]
    )
    assert [(entry["status"], entry["answered_by"]) for entry in listed] == [("done", "client:alice")]
    assert listed[0]["bound"] == {"path.shopId": "s1"}


@pytest.mark.parametrize("mode", ERAS)
@pytest.mark.parametrize(("action", "said"), [("decline", "declined"), ("cancel", "dismissed")])
async def test_the_clients_user_refuses_and_the_agent_gets_the_reason_with_nothing_sent(
    tmp_path: Path, upstream: Upstream, action: str, said: str, mode: str
) -> None:
    async with (
        running_gateway(elicit_config(tmp_path, upstream)) as (base, _),
        http_client(f"{base}/mcp", key=CLIENT_KEY, mode=mode, elicitation_callback=User(action)) as client,
    ):
        result = await client.call_tool("createOrder", ORDER)
        listed = await approvals(base)
    assert result.is_error is True
    assert text(result).startswith("[approval-rejected]")
    assert said in text(result)
    assert upstream.requests == []
    assert [(entry["status"], entry["answered_by"]) for entry in listed] == [("rejected", "client:alice")]


@pytest.mark.parametrize("mode", ERAS)
async def test_a_client_that_declares_no_elicitation_gets_the_operator_flow(
    tmp_path: Path, upstream: Upstream, mode: str
) -> None:
    # no elicitation callback registered: the SDK then declares no elicitation capability
    config = elicit_config(tmp_path, upstream, wait=0)
    async with (
        running_gateway(config) as (base, _),
        http_client(f"{base}/mcp", key=CLIENT_KEY, mode=mode) as client,
    ):
        pending = await client.call_tool("createOrder", ORDER)
        assert text(pending).startswith("[approval-pending]")
        async with httpx.AsyncClient(base_url=base) as admin:
            answered = await admin.post(
                f"/admin/approvals/{approval_id(pending)}/approve",
                headers={"Authorization": f"Bearer {ADMIN_KEY}"},
            )
        assert answered.status_code == 200
        done = await client.call_tool("createOrder", ORDER)
    assert done.structured_content == {"id": "o1"}
    assert len(upstream.requests) == 1


async def test_with_approvals_by_operator_the_clients_user_is_never_asked(
    tmp_path: Path, upstream: Upstream
) -> None:
    user = User("accept")
    config = elicit_config(tmp_path, upstream, by="operator", wait=0)
    async with (
        running_gateway(config) as (base, _),
        http_client(f"{base}/mcp", key=CLIENT_KEY, elicitation_callback=user) as client,
    ):
        result = await client.call_tool("createOrder", ORDER)
    assert text(result).startswith("[approval-pending]")
    assert user.asked == []
    assert upstream.requests == []


async def test_an_elicitation_that_fails_leaves_the_approval_to_the_operator_and_logs_why(
    tmp_path: Path, upstream: Upstream, caplog: pytest.LogCaptureFixture
) -> None:
    user = User(fail=True)
    config = elicit_config(tmp_path, upstream, wait=1)
    with caplog.at_level(logging.WARNING, logger="specbridge.gateway"):
        async with (
            running_gateway(config) as (base, _),
            http_client(f"{base}/mcp", key=CLIENT_KEY, elicitation_callback=user) as client,
        ):
            result = await client.call_tool("createOrder", ORDER)
            listed = await approvals(base)
    assert text(result).startswith("[approval-pending]")
    assert len(user.asked) == 1
    assert [entry["status"] for entry in listed] == ["pending"]
    codes = [getattr(record, "fields", {}).get("code") for record in caplog.records]
    assert "approval-ask-failed" in codes
    assert upstream.requests == []


async def test_an_operators_answer_while_the_user_is_asked_ends_the_question_and_stands(
    tmp_path: Path, upstream: Upstream
) -> None:
    asked = anyio.Event()
    messages: list[str] = []

    async def slow_user(
        context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult | types.ErrorData:
        messages.append(params.message)
        asked.set()
        await anyio.Event().wait()  # the user never gets to it; the gateway withdraws the question
        return types.ElicitResult(action="decline")

    results: list[types.CallToolResult] = []
    async with (
        running_gateway(elicit_config(tmp_path, upstream)) as (base, _),
        http_client(f"{base}/mcp", key=CLIENT_KEY, elicitation_callback=slow_user) as client,
    ):

        async def call() -> None:
            results.append(await client.call_tool("createOrder", ORDER))

        with anyio.fail_after(15):
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(call)
                await asked.wait()
                pending_id = str((await approvals(base))[0]["id"])
                async with httpx.AsyncClient(base_url=base) as admin:
                    answered = await admin.post(
                        f"/admin/approvals/{pending_id}/approve",
                        headers={"Authorization": f"Bearer {ADMIN_KEY}"},
                    )
                assert answered.status_code == 200
        listed = await approvals(base)
    assert results[0].structured_content == {"id": "o1"}
    assert [(entry["status"], entry["answered_by"]) for entry in listed] == [("done", "ops")]
    assert len(messages) == 1
    assert len(upstream.requests) == 1
