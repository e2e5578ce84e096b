"""Rate limits and tool access under load (issue 19 items 3-5): eight concurrent SDK clients on one gateway,
and one client's calls spread over two gateway processes on one Redis store, each limit holding exactly;
the audit log's lines, from both processes into one file, whole and free of tokens and keys."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import anyio
import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError

from specbridge.access import key_sha256
from tests.support.gateway import IN_PROCESS, http_client, in_process_gateway, write_config
from tests.support.processes import gateway_processes
from tests.support.stores import namespaces, server_store
from tests.support.tokens import Issuer
from tests.support.upstream import Upstream, json_response

__all__ = ["namespaces"]

RESOURCE = f"{IN_PROCESS}/shop/mcp"
KEYS = [f"sbk_key-of-client-{index}" for index in range(8)]
ORDER = {"shopId": "s1", "product": "p", "quantity": 1}


@pytest.fixture(autouse=True)
def upstream_routes(upstream: Upstream) -> None:
    upstream.route("/products/p1", json_response({"id": "p1", "name": "Mug"}))
    upstream.route("/shops/s1/orders", json_response({"id": "o1"}, status=201))


def clients(count: int, rule: Callable[[int], str] = lambda index: "") -> str:
    lines = ["clients:"]
    for index in range(count):
        lines += [f"  client-{index}:", f'    key_sha256: "{key_sha256(KEYS[index])}"', "    apis: [shop]"]
        if rule(index):
            lines.append(f"    tools: {{shop: {rule(index)}}}")
    return "\n".join(lines) + "\n"


def outcome(result: types.CallToolResult) -> str:
    if not result.is_error:
        return "ok"
    said = " ".join(block.text for block in result.content if isinstance(block, types.TextContent))
    return said.partition("]")[0].lstrip("[")


async def test_eight_concurrent_clients_each_get_exactly_their_limit_and_their_tools(
    tmp_path: Path, upstream: Upstream
) -> None:
    odd_denied = clients(8, lambda index: "{deny: [createOrder]}" if index % 2 else "")
    config = write_config(tmp_path, upstream, clients=odd_denied + "limits: {per_client: 5/hour}\n")
    outcomes: dict[int, Counter[str]] = {index: Counter() for index in range(8)}
    listed: dict[int, list[str]] = {}

    async def client(index: int) -> None:
        async with http_client(RESOURCE, key=KEYS[index], transport=asgi) as session:
            listed[index] = [tool.name for tool in (await session.list_tools()).tools]
            if index % 2:
                with pytest.raises(MCPError) as caught:
                    await session.call_tool("createOrder", ORDER)
                outcomes[index][str((caught.value.error.data or {}).get("code"))] += 1

            async def one() -> None:
                outcomes[index][outcome(await session.call_tool("getProduct", {"id": "p1"}))] += 1

            async with anyio.create_task_group() as calls:
                for _ in range(8):
                    calls.start_soon(one)

    async with in_process_gateway(config) as (asgi, _):
        with anyio.fail_after(120):
            async with anyio.create_task_group() as tasks:
                for index in range(8):
                    tasks.start_soon(client, index)
    for index in range(8):
        expected = Counter({"ok": 5, "rate-limited": 3})
        if index % 2:
            expected["tool-unknown"] = 1
            assert "createOrder" not in listed[index]
        else:
            assert "createOrder" in listed[index]
        assert outcomes[index] == expected, index
    assert [request.path for request in upstream.requests] == ["/products/p1"] * 40


@pytest.fixture
def redis_store(namespaces: Callable[[str], str]) -> str:
    return server_store("redis", namespaces)


async def test_two_gateway_processes_on_one_redis_share_a_clients_limit_and_its_rules(
    tmp_path: Path, upstream: Upstream, redis_store: str
) -> None:
    audit = tmp_path / "audit.jsonl"
    top = f"limits: {{per_client: 6/hour}}\nstore: '{redis_store}'\naudit: {{path: {audit}}}\n"
    config = write_config(tmp_path, upstream, clients=clients(1, lambda _: "{deny: [createOrder]}") + top)
    outcomes: Counter[str] = Counter()
    async with gateway_processes(config, 2) as (one, two):

        async def call(base: str) -> None:
            async with http_client(f"{base}/mcp", key=KEYS[0]) as session:
                outcomes[outcome(await session.call_tool("getProduct", {"id": "p1"}))] += 1
                with pytest.raises(MCPError) as caught:
                    await session.call_tool("createOrder", ORDER)
                outcomes[str((caught.value.error.data or {}).get("code"))] += 1

        with anyio.fail_after(120):
            async with anyio.create_task_group() as tasks:
                for index in range(12):
                    tasks.start_soon(call, (one, two)[index % 2].base)
    assert outcomes == Counter({"ok": 6, "rate-limited": 6, "tool-unknown": 12})
    assert [request.path for request in upstream.requests] == ["/products/p1"] * 6
    lines = [json.loads(line) for line in audit.read_text(encoding="utf-8").splitlines()]
    assert len(lines) == 24  # one whole line per call, from both processes into one file
    assert len({line["instance"] for line in lines}) == 2
    assert Counter(line["outcome"] for line in lines) == outcomes
    assert {line["refused_by"] for line in lines if line["outcome"] == "tool-unknown"} == {
        "clients.client-0.tools.shop.deny"
    }
    assert {line["refused_by"] for line in lines if line["outcome"] == "rate-limited"} == {
        "limits.per_client"
    }
    assert KEYS[0] not in audit.read_text(encoding="utf-8")


async def test_the_audit_log_names_a_tokens_subject_and_never_holds_the_token(
    tmp_path: Path, upstream: Upstream
) -> None:
    issuer = Issuer(upstream.url)
    upstream.route("/jwks", json_response(issuer.jwks()))
    audit = tmp_path / "audit.jsonl"
    oauth = (
        f"oauth: {{issuer: {issuer.issuer}, jwks_uri: {upstream.url}/jwks, allow_unknown_clients: true}}\n"
    )
    config = write_config(tmp_path, upstream, extra=oauth, clients=f"audit: {{path: {audit.name}}}\n")
    token = issuer.mint(aud=RESOURCE, client_id="robot-9", sub="person-42", scope="anything")
    async with (
        in_process_gateway(config) as (asgi, _),
        http_client(RESOURCE, key=token, transport=asgi) as client,
    ):
        await client.call_tool("getProduct", {"id": "p1"})
        await client.call_tool("createOrder", {**ORDER, "product": "distinctive-product-name"})
    written = audit.read_text(encoding="utf-8")
    lines = [json.loads(line) for line in written.splitlines()]
    assert [(line["tool"], line["client"], line["subject"], line["outcome"]) for line in lines] == [
        ("getProduct", "oauth:robot-9", "person-42", "ok"),
        ("createOrder", "oauth:robot-9", "person-42", "ok"),
    ]
    assert token not in written and token.split(".")[2] not in written
    assert "distinctive-product-name" not in written and "Mug" not in written
