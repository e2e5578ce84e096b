"""Idempotency keys end to end: the SDK client over Streamable HTTP (the gateway's app in process; two
gateway processes for the last test), a real upstream on loopback, and the store on SQLite, PostgreSQL
and Redis."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from standardwebhooks import Webhook

from specbridge.access import key_sha256, new_key
from specbridge.document import parse_document
from specbridge.service import call_key, derived_key, fingerprint, store_key
from specbridge.store import open_store
from specbridge.tools import convert
from tests.gateway._keys import KEY_SPEC, MCP, ORDER, config_with, orders
from tests.support.gateway import http_client, in_process_gateway, text
from tests.support.processes import gateway_processes
from tests.support.stores import namespaces, store_url
from tests.support.upstream import Gate, Upstream, json_response
from tests.support.webhooks import webhook_receiver

__all__ = ["namespaces", "store_url"]


@pytest.fixture(autouse=True)
def upstream_routes(upstream: Upstream) -> None:
    upstream.route("/shops/s1/orders", json_response({"id": "o1"}, status=201))
    upstream.route("/products/p1", json_response({"id": "p1", "name": "Mug"}))
    upstream.route("/payments", json_response({"id": "pay1"}))
    upstream.route("/checkouts", json_response({"id": "c1"}))
    upstream.route("/refunds", json_response({"id": "r1"}))


async def test_a_repeated_key_with_the_same_arguments_gets_the_stored_result_and_sends_nothing_again(
    tmp_path: Path, upstream: Upstream, store_url: str
) -> None:
    config = config_with(tmp_path, upstream, store_url)
    async with in_process_gateway(config) as (asgi, _), http_client(MCP, transport=asgi) as client:
        first = await client.call_tool("createOrder", {**ORDER, "idempotency_key": "order-1"})
        upstream.route("/shops/s1/orders", json_response({"id": "o2"}, status=201))
        again = await client.call_tool("createOrder", {**ORDER, "idempotency_key": "order-1"})
        fresh = await client.call_tool("createOrder", {**ORDER, "idempotency_key": "order-2"})
    assert first.structured_content == again.structured_content == {"id": "o1"}
    assert fresh.structured_content == {"id": "o2"}
    assert len(orders(upstream)) == 2
    assert b"idempotency" not in orders(upstream)[0].body  # the gateway's key never goes upstream


async def test_a_key_reused_with_other_arguments_is_refused_and_nothing_is_sent(
    tmp_path: Path, upstream: Upstream, store_url: str
) -> None:
    config = config_with(tmp_path, upstream, store_url)
    async with in_process_gateway(config) as (asgi, _), http_client(MCP, transport=asgi) as client:
        await client.call_tool("createOrder", {**ORDER, "idempotency_key": "k"})
        reused = await client.call_tool("createOrder", {**ORDER, "quantity": 3, "idempotency_key": "k"})
    assert reused.is_error is True
    assert text(reused).startswith("[idempotency-key-reused]")
    assert len(orders(upstream)) == 1


async def calls_at_once(gate: Gate, key: str, *clients: Any, count: int = 10) -> list[types.CallToolResult]:
    """`count` calls with one idempotency key, by turns through `clients`, all started before the
    upstream lets its first answer go (bounded)."""
    results: list[types.CallToolResult] = []

    async def call(client: Any) -> None:
        results.append(await client.call_tool("createOrder", {**ORDER, "idempotency_key": key}))

    with anyio.fail_after(30):
        async with anyio.create_task_group() as tasks:
            for n in range(count):
                tasks.start_soon(call, clients[n % len(clients)])
            await anyio.to_thread.run_sync(gate.arrived.wait, 20)
            gate.open.set()
    return results


async def test_twenty_concurrent_calls_with_one_key_make_exactly_one_upstream_request(
    tmp_path: Path, upstream: Upstream, store_url: str
) -> None:
    gate = Gate()
    upstream.route("/shops/s1/orders", gate.reply({"id": "o-once"}))
    config = config_with(tmp_path, upstream, store_url)
    async with in_process_gateway(config) as (asgi, _), http_client(MCP, transport=asgi) as client:
        results = await calls_at_once(gate, "same", client, count=20)
    assert [result.structured_content for result in results] == [{"id": "o-once"}] * 20
    assert len(orders(upstream)) == 1


async def test_two_gateways_sharing_a_store_send_one_key_once_even_called_at_the_same_time(
    tmp_path: Path, upstream: Upstream, store_url: str
) -> None:
    gate = Gate()
    upstream.route("/shops/s1/orders", gate.reply({"id": "o-shared"}))
    config = config_with(tmp_path, upstream, store_url)
    async with (
        in_process_gateway(config) as (one, _),
        in_process_gateway(config) as (two, _),
        http_client(MCP, transport=one) as first,
        http_client(MCP, transport=two) as second,
    ):
        results = await calls_at_once(gate, "shared", first, second)
        later = await second.call_tool("createOrder", {**ORDER, "idempotency_key": "shared"})
    assert [result.structured_content for result in results] == [{"id": "o-shared"}] * 10
    assert later.structured_content == {"id": "o-shared"}
    assert len(orders(upstream)) == 1


async def test_the_documents_idempotency_header_gets_a_key_derived_from_client_tool_and_key(
    tmp_path: Path, upstream: Upstream
) -> None:
    key_a, key_b = new_key(), new_key()
    clients = (
        "clients:\n"
        f"  a: {{key_sha256: {key_sha256(key_a)}, apis: [shop]}}\n"
        f"  b: {{key_sha256: {key_sha256(key_b)}, apis: [shop]}}\n"
    )
    config = config_with(tmp_path, upstream, f"sqlite:///{tmp_path / 'state.db'}", clients=clients)
    async with in_process_gateway(config) as (asgi, _):
        async with http_client(MCP, key=key_a, transport=asgi) as client:
            listed = {tool.name: tool for tool in (await client.list_tools()).tools}
            schema = listed["createPayment"].input_schema
            await client.call_tool("createPayment", {"amount": 5, "idempotency_key": "pay-1"})
            # the agent's own value for the API's field is replaced, never sent
            await client.call_tool("createPayment", {"amount": 6, "Idempotency-Key": "mine"})
        async with http_client(MCP, key=key_b, transport=asgi) as client:
            await client.call_tool("createPayment", {"amount": 5, "idempotency_key": "pay-1"})
    assert "idempotency_key" in schema["properties"]
    assert "Idempotency-Key" not in schema["properties"]
    sent = [request.headers.get("idempotency-key") for request in upstream.requests]
    assert sent == [
        derived_key(("shop", "a", "createPayment"), "pay-1"),
        derived_key(("shop", "a", "createPayment"), "mine"),
        derived_key(("shop", "b", "createPayment"), "pay-1"),
    ]
    assert len(set(sent)) == 3 and "mine" not in sent


async def test_a_body_idempotency_field_is_filled_with_the_derived_key_and_the_key_becomes_required(
    tmp_path: Path, upstream: Upstream
) -> None:
    config = config_with(tmp_path, upstream, f"sqlite:///{tmp_path / 'state.db'}")
    async with in_process_gateway(config) as (asgi, _), http_client(MCP, transport=asgi) as client:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
        missing = await client.call_tool("createCheckout", {"amount": 5})
        done = await client.call_tool("createCheckout", {"amount": 5, "idempotency_key": "c-1"})
    schema = listed["createCheckout"].input_schema
    assert "idempotency_key" in schema["required"]
    assert text(missing).startswith("[arguments-invalid]") and "idempotency_key" in text(missing)
    assert done.structured_content == {"id": "c1"}
    (request,) = upstream.requests
    assert (
        b'"idempotency_key":"' + derived_key(("shop", "", "createCheckout"), "c-1").encode() in request.body
    )


async def test_a_key_field_inside_a_body_taken_whole_is_hidden_replaced_and_filled(
    tmp_path: Path, upstream: Upstream
) -> None:
    config = config_with(tmp_path, upstream, f"sqlite:///{tmp_path / 'state.db'}")
    async with in_process_gateway(config) as (asgi, _), http_client(MCP, transport=asgi) as client:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
        body = {"amount": 5, "idempotency_key": "agent-made"}  # the agent's own value: its key, not sent
        done = await client.call_tool("createRefund", {"body": body})
    schema = listed["createRefund"].input_schema
    assert "idempotency_key" not in schema["properties"]["body"].get("properties", {})
    assert "idempotency_key" in schema["required"]
    assert done.structured_content == {"id": "r1"}
    (request,) = upstream.requests
    sent = json.loads(request.body)
    assert sent == {"amount": 5, "idempotency_key": derived_key(("shop", "", "createRefund"), "agent-made")}


async def test_an_api_error_is_stored_but_a_refusal_of_the_gateway_is_forgotten(
    tmp_path: Path, upstream: Upstream
) -> None:
    upstream.route("/payments", json_response({"error": "card declined"}, status=402))
    config = config_with(tmp_path, upstream, f"sqlite:///{tmp_path / 'state.db'}")
    async with in_process_gateway(config) as (asgi, _), http_client(MCP, transport=asgi) as client:
        declined = await client.call_tool("createPayment", {"amount": 5, "idempotency_key": "p"})
        upstream.route("/payments", json_response({"id": "pay2"}))
        still = await client.call_tool("createPayment", {"amount": 5, "idempotency_key": "p"})
        refused = await client.call_tool("createOrder", {**ORDER, "quantity": 0, "idempotency_key": "o"})
        sent = await client.call_tool("createOrder", {**ORDER, "idempotency_key": "o"})
    assert declined.is_error is True and text(still) == text(declined)
    assert text(refused).startswith("[arguments-invalid]")
    assert sent.structured_content == {"id": "o1"}  # not key-reused: the refusal sent nothing
    assert [request.path for request in upstream.requests] == ["/payments", "/shops/s1/orders"]


@pytest.mark.parametrize("key", ["", "x" * 256, "tab\there", 7])
async def test_a_malformed_key_is_an_argument_error_and_nothing_is_sent(
    tmp_path: Path, upstream: Upstream, key: object
) -> None:
    config = config_with(tmp_path, upstream, f"sqlite:///{tmp_path / 'state.db'}")
    async with in_process_gateway(config) as (asgi, _), http_client(MCP, transport=asgi) as client:
        result = await client.call_tool("createOrder", {**ORDER, "idempotency_key": key})
    assert text(result).startswith("[arguments-invalid]") and "idempotency_key" in text(result)
    assert upstream.requests == []


async def test_only_tools_that_are_not_idempotent_take_a_key_unless_the_config_says_otherwise(
    tmp_path: Path, upstream: Upstream
) -> None:
    store = f"sqlite:///{tmp_path / 'state.db'}"
    auto = config_with(tmp_path, upstream, store)
    async with in_process_gateway(auto) as (asgi, _), http_client(MCP, transport=asgi) as client:
        schemas = {tool.name: tool.input_schema for tool in (await client.list_tools()).tools}
    assert "idempotency_key" in schemas["createOrder"]["properties"]
    assert "idempotency_key" not in schemas["getProduct"].get("properties", {})
    none = config_with(tmp_path, upstream, store, top="idempotency: {tools: none}\n")
    async with in_process_gateway(none) as (asgi, _), http_client(MCP, transport=asgi) as client:
        schemas = {tool.name: tool.input_schema for tool in (await client.list_tools()).tools}
        passed_on = await client.call_tool("createOrder", {**ORDER, "idempotency_key": "k"})
    assert "idempotency_key" not in schemas["createOrder"]["properties"]
    assert text(passed_on).startswith("[arguments-invalid]")  # an unknown argument, as any other


async def test_a_key_whose_owner_died_mid_call_is_outcome_unknown_and_never_sent_again(
    tmp_path: Path, upstream: Upstream, store_url: str
) -> None:
    scope = ("shop", "", "createOrder")
    tool = convert(parse_document(KEY_SPEC)).get("createOrder")
    assert tool is not None
    name = store_key(scope, "lost")
    call = fingerprint(scope, ORDER, {}, tool, upstream.url, key=name)  # the service's, of this call
    async with open_store(store_url) as store:  # a gateway that claimed the key and died
        then = time.time() - 600
        await store.claim(name, "dead", call, 1, 86400, then)
    config = config_with(tmp_path, upstream, store_url)
    async with in_process_gateway(config) as (asgi, _), http_client(MCP, transport=asgi) as client:
        result = await client.call_tool("createOrder", {**ORDER, "idempotency_key": "lost"})
    assert text(result).startswith("[idempotency-outcome-unknown]")
    assert upstream.requests == []


# -- long calls ------------------------------------------------------------------------------------

LONG = "calls: {long: true, wait: 0.3}\n"


def call_id(result: types.CallToolResult) -> str:
    assert text(result).startswith("[call-pending]"), text(result)
    return text(result).split("call id ")[1].split(")")[0]


async def until_done(client: Any, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
    """Ask again until the result is there (each ask waits up to `calls.wait` itself; bounded)."""
    with anyio.fail_after(20):
        while True:
            result = await client.call_tool(name, arguments)
            if not text(result).startswith("[call-pending]"):
                return result


async def test_a_long_call_answers_pending_goes_on_and_its_result_comes_from_calling_again(
    tmp_path: Path, upstream: Upstream, store_url: str
) -> None:
    gate = Gate()
    upstream.route("/shops/s1/orders", gate.reply({"id": "o-slow"}))
    config = config_with(tmp_path, upstream, store_url, top=LONG)
    async with in_process_gateway(config) as (asgi, _), http_client(MCP, transport=asgi) as client:
        names = [tool.name for tool in (await client.list_tools()).tools]
        pending = await client.call_tool("createOrder", ORDER)
        identifier = call_id(pending)
        again = await client.call_tool("createOrder", ORDER)  # still running: the same call, not a new one
        assert call_id(again) == identifier
        gate.open.set()
        done = await until_done(client, "createOrder", ORDER)
        by_id = await until_done(client, "get_call_result", {"call_id": identifier})
    assert "get_call_result" in names
    assert done.structured_content == by_id.structured_content == {"id": "o-slow"}
    assert len(orders(upstream)) == 1


async def test_a_long_call_with_an_idempotency_key_is_sent_once_and_its_key_returns_the_result(
    tmp_path: Path, upstream: Upstream
) -> None:
    gate = Gate()
    upstream.route("/shops/s1/orders", gate.reply({"id": "o-key"}))
    config = config_with(tmp_path, upstream, f"sqlite:///{tmp_path / 'state.db'}", top=LONG)
    keyed = {**ORDER, "idempotency_key": "slow-1"}
    async with in_process_gateway(config) as (asgi, _), http_client(MCP, transport=asgi) as client:
        call_id(await client.call_tool("createOrder", keyed))
        gate.open.set()
        done = await until_done(client, "createOrder", keyed)
        repeated = await client.call_tool("createOrder", keyed)  # the key's stored result
    assert done.structured_content == repeated.structured_content == {"id": "o-key"}
    assert len(orders(upstream)) == 1


async def test_get_call_result_is_listed_only_with_long_calls_and_knows_only_its_own_calls(
    tmp_path: Path, upstream: Upstream
) -> None:
    store = f"sqlite:///{tmp_path / 'state.db'}"
    plain = config_with(tmp_path, upstream, store)
    async with in_process_gateway(plain) as (asgi, _), http_client(MCP, transport=asgi) as client:
        names = [tool.name for tool in (await client.list_tools()).tools]
    assert "get_call_result" not in names
    config = config_with(tmp_path, upstream, store, top=LONG)
    async with in_process_gateway(config) as (asgi, _), http_client(MCP, transport=asgi) as client:
        unknown = await client.call_tool("get_call_result", {"call_id": "no-such-call"})
        malformed = await client.call_tool("get_call_result", {"call_id": 5})
    assert text(unknown).startswith("[call-not-found]")
    assert text(malformed).startswith("[arguments-invalid]")


async def test_a_long_call_whose_gateway_died_is_outcome_unknown_through_get_call_result(
    tmp_path: Path, upstream: Upstream, store_url: str
) -> None:
    async with open_store(store_url) as store:  # the gateway running it claimed it, then died
        await store.claim(call_key("shop", "", "lost-call"), "dead", "x", 1, 86400, time.time() - 600)
    config = config_with(tmp_path, upstream, store_url, top=LONG)
    async with in_process_gateway(config) as (asgi, _), http_client(MCP, transport=asgi) as client:
        result = await client.call_tool("get_call_result", {"call_id": "lost-call"})
    assert text(result).startswith("[call-outcome-unknown]")
    assert upstream.requests == []


async def test_a_long_call_that_answered_pending_is_announced_to_its_clients_webhook_signed(
    tmp_path: Path, upstream: Upstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = Gate()
    upstream.route("/shops/s1/orders", gate.reply({"id": "o-hook"}))
    with webhook_receiver(monkeypatch) as hooks:
        config = config_with(
            tmp_path, upstream, f"sqlite:///{tmp_path / 'state.db'}", top=LONG, clients=hooks.clients
        )
        async with (
            in_process_gateway(config) as (asgi, _),
            http_client(MCP, key=hooks.key, transport=asgi) as client,
        ):
            identifier = call_id(await client.call_tool("createOrder", ORDER))
            gate.open.set()
            # the sender looks at the outbox every second; bounded
            assert await anyio.to_thread.run_sync(hooks.delivered.wait, 20)
        (delivery,) = hooks.upstream.requests
    payload = Webhook(hooks.secret).verify(delivery.body, delivery.headers)
    assert payload["type"] == "call.completed"
    assert payload["data"]["call_id"] == identifier
    assert payload["data"]["client"] == "bot" and payload["data"]["tool"] == "createOrder"
    assert json.loads(payload["data"]["result"]["text"]) == {"id": "o-hook"}


async def test_two_gateway_processes_on_one_store_send_one_key_once(
    tmp_path: Path, upstream: Upstream, store_url: str
) -> None:
    gate = Gate()
    upstream.route("/shops/s1/orders", gate.reply({"id": "o-processes"}))
    config = config_with(tmp_path, upstream, store_url)
    async with (
        gateway_processes(config, 2) as (one, two),
        http_client(f"{one.base}/mcp") as first,
        http_client(f"{two.base}/mcp") as second,
    ):
        results = await calls_at_once(gate, "p", first, second)
    assert [result.structured_content for result in results] == [{"id": "o-processes"}] * 10
    assert len(orders(upstream)) == 1
