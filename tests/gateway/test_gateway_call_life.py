"""The life of one call through the adapter, where steps that send nothing meet "send once" (issue 20):
asking the client's user, resolving a file and waiting for a person never make a call "outcome
unknown". The gateway runs in process (its ASGI app), the SDK client is the agent, the upstream is real.
"""

from __future__ import annotations

from pathlib import Path

import httpx2
import pytest

from specbridge.access import key_sha256, new_key
from tests.gateway._elicit import User
from tests.support.files import FILES_SPEC
from tests.support.gateway import IN_PROCESS, http_client, in_process_gateway, text, write_config
from tests.support.stores import namespaces, store_url
from tests.support.upstream import Upstream, json_response

__all__ = ["namespaces", "store_url"]

MODERN = "2026-07-28"
ORDER = {"shopId": "s1", "product": "p1", "quantity": 2}
KEY_A, KEY_B = new_key(), new_key()


@pytest.fixture(autouse=True)
def upstream_routes(upstream: Upstream) -> None:
    upstream.route("/shops/s1/orders", json_response({"id": "o1"}, status=201))
    upstream.route("/blobs/b1", json_response({"stored": True}))


def config(tmp_path: Path, upstream: Upstream, store: str, top: str, *, spec: str | None = None) -> Path:
    tools = "" if spec is not None else "tools:\n  createOrder: {requires_approval: true}\n"
    path = write_config(tmp_path, upstream, tools=tools, **({"spec": spec} if spec else {}))
    path.write_text(path.read_text(encoding="utf-8") + f"store: '{store}'\n{top}", encoding="utf-8")
    return path


async def test_the_retry_carrying_the_users_answer_is_sent_once_with_its_idempotency_key(
    tmp_path: Path, upstream: Upstream
) -> None:
    """approvals.by: client + an idempotency_key, 2026-07-28: asking the user sends nothing, so the key
    stays free and the retry with the answer makes the call (it was `idempotency-outcome-unknown`)."""
    user = User("accept")
    path = config(tmp_path, upstream, f"sqlite:///{tmp_path / 'state.db'}", "approvals: {by: client}\n")
    keyed = {**ORDER, "idempotency_key": "order-1"}
    async with (
        in_process_gateway(path) as (asgi, _),
        http_client(f"{IN_PROCESS}/mcp", transport=asgi, mode=MODERN, elicitation_callback=user) as client,
    ):
        result = await client.call_tool("createOrder", keyed)
        again = await client.call_tool("createOrder", keyed)  # the key's stored result, nothing asked
    assert result.is_error is False, text(result)
    assert result.structured_content == again.structured_content == {"id": "o1"}
    assert len(user.asked) == 1
    assert [request.path for request in upstream.requests] == ["/shops/s1/orders"]


async def test_a_long_call_that_needs_the_users_approval_asks_the_user(
    tmp_path: Path, upstream: Upstream
) -> None:
    """approvals.by: client + calls.long, 2026-07-28: the question reaches the user and the call is
    sent after the answer (it was `call-outcome-unknown`, nobody asked, nothing sent)."""
    user = User("accept")
    top = "approvals: {by: client}\ncalls: {long: true, wait: 5}\n"
    path = config(tmp_path, upstream, f"sqlite:///{tmp_path / 'state.db'}", top)
    async with (
        in_process_gateway(path) as (asgi, _),
        http_client(f"{IN_PROCESS}/mcp", transport=asgi, mode=MODERN, elicitation_callback=user) as client,
    ):
        result = await client.call_tool("createOrder", ORDER)
    assert result.is_error is False, text(result)
    assert result.structured_content == {"id": "o1"}
    assert len(user.asked) == 1
    assert len(upstream.requests) == 1


async def test_a_long_call_waiting_for_a_person_says_it_awaits_approval_not_that_it_runs(
    tmp_path: Path, upstream: Upstream
) -> None:
    top = "approvals: {wait: 0.5}\ncalls: {long: true, wait: 0.2}\n"
    path = config(tmp_path, upstream, f"sqlite:///{tmp_path / 'state.db'}", top)
    async with (
        in_process_gateway(path) as (asgi, _),
        http_client(f"{IN_PROCESS}/mcp", transport=asgi) as client,
    ):
        result = await client.call_tool("createOrder", ORDER)
    assert text(result).startswith("[approval-pending]")
    assert "nothing was sent" in text(result) and "running" not in text(result)
    assert upstream.requests == []


async def test_a_long_call_refused_before_sending_gets_its_reason_not_outcome_unknown(
    tmp_path: Path, upstream: Upstream, store_url: str
) -> None:
    """calls.long + another client's file_id: `file-not-found` (it was `call-outcome-unknown`)."""
    clients = (
        "clients:\n"
        f"  a: {{key_sha256: {key_sha256(KEY_A)}, apis: [shop]}}\n"
        f"  b: {{key_sha256: {key_sha256(KEY_B)}, apis: [shop]}}\n"
    )
    path = config(tmp_path, upstream, store_url, "calls: {long: true, wait: 5}\n" + clients, spec=FILES_SPEC)
    async with in_process_gateway(path) as (asgi, _):
        async with httpx2.AsyncClient(transport=asgi, base_url=IN_PROCESS) as http:
            uploaded = await http.post(
                "/files", content=b"bytes of a", headers={"Authorization": f"Bearer {KEY_A}"}
            )
        file_id = uploaded.json()["file_id"]
        async with http_client(f"{IN_PROCESS}/mcp", transport=asgi, key=KEY_B) as client:
            result = await client.call_tool("putBlob", {"name": "b1", "body": {"file_id": file_id}})
    assert text(result).startswith("[file-not-found]"), text(result)
    assert upstream.requests == []
