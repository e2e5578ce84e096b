"""The store failing under a serving gateway (issue 26 item 4): while it is down or hangs, every call
that needs it answers a result with `store-unavailable` within the store's timeout (`?timeout=1`),
never a JSON-RPC error nor a wait to the call deadline; after a send, the result says the request was
sent and its outcome not recorded; calls that do not need the store go on.

The stores: a Redis of this test's own (`redis-server` on a free port: SIGSTOPped, then killed; never
the machine's service) and the machine's PostgreSQL through a TCP proxy the test freezes and takes down
(tests/support/proxy.py)."""

from __future__ import annotations

import contextlib
import shutil
import signal
import socket
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import anyio
import mcp_types as types
import pytest

from tests.gateway._keys import KEY_SPEC
from tests.support.gateway import (
    IN_PROCESS,
    http_client,
    in_process_gateway,
    running_gateway,
    text,
    write_config,
)
from tests.support.proxy import Proxy
from tests.support.required import lacking
from tests.support.stores import POSTGRES, namespaces, refused, through
from tests.support.upstream import Gate, Upstream, json_response

__all__ = ["namespaces"]

REDIS_SERVER = shutil.which("redis-server")
# The calls here carry no session: with `sessions: store` (the default on PostgreSQL and Redis) a
# handshake-era session's own requests need the store and answer HTTP 503 `store-unavailable` while it
# fails (tests/gateway/test_gateway_sessions.py); the call layer's answers are what is looked at here.
STATELESS = "2026-07-28"
KEYED = {"shopId": "s1", "product": "p1", "quantity": 2, "idempotency_key": "order-1"}
BOUND = 15  # seconds any one call may take here: a few store steps of 1 s, far below the 20 s deadline


@dataclass
class Outage:
    """A store URL, and how to make that store hang, go away, and come back."""

    url: str
    hang: Callable[[], None]
    down: Callable[[], None]
    back: Callable[[], None]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def accepts(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except OSError:
        return False
    return True


@contextlib.contextmanager
def own_redis(folder: Path) -> Iterator[Outage]:
    """redis-server on a free port, in `folder`, without persistence; stopped (SIGSTOP) to hang,
    killed to go away. Always killed at the end."""
    if REDIS_SERVER is None:
        pytest.skip(lacking("redis-server", "not installed (Debian: apt-get install -y redis-server)"))
    port = free_port()
    command = [REDIS_SERVER, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
    server = subprocess.Popen(
        [*command, "--dir", str(folder)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )

    def back() -> None:
        server.send_signal(signal.SIGCONT)

    try:
        with anyio.from_thread.start_blocking_portal() as portal:
            portal.call(_until_accepting, port)
        yield Outage(
            f"redis://127.0.0.1:{port}/0?timeout=1",
            lambda: server.send_signal(signal.SIGSTOP),
            server.kill,
            back,
        )
    finally:
        server.send_signal(signal.SIGCONT)
        server.kill()
        server.wait(30)


async def _until_accepting(port: int) -> None:
    pause = 0.01
    with anyio.fail_after(30):
        while not accepts(port):
            await anyio.sleep(pause)
            pause = min(pause * 2, 0.2)


@contextlib.contextmanager
def proxied_postgres(namespace: str) -> Iterator[Outage]:
    reason = refused(POSTGRES)
    if reason:
        pytest.skip(reason)
    parts = urlsplit(POSTGRES)
    with Proxy(parts.hostname or "127.0.0.1", parts.port or 0) as proxy:
        gone: list[bool] = []

        def down() -> None:
            proxy.down()
            gone.append(True)

        def back() -> None:
            proxy.thaw()
            if gone:
                proxy.up()

        url = f"{through(proxy, POSTGRES)}?namespace={namespace}&timeout=1"
        yield Outage(url, proxy.freeze, down, back)


@pytest.fixture(params=["redis", "postgresql"])
def outage(
    request: pytest.FixtureRequest, tmp_path: Path, namespaces: Callable[[str], str]
) -> Iterator[Outage]:
    if request.param == "redis":
        with own_redis(tmp_path) as made:
            yield made
    else:
        with proxied_postgres(namespaces("postgresql")) as made:
            yield made


@pytest.fixture
def gate(upstream: Upstream) -> Gate:
    held = Gate(limit=30)
    upstream.route("/shops/s1/orders", held.reply({"id": "o1"}, status=201))
    upstream.route("/products/p1", json_response({"id": "p1", "name": "Mug"}))
    return held


def outage_config(tmp_path: Path, upstream: Upstream, store: str) -> Path:
    """Two APIs on one document: `shop` (createPayment needs a person) and `slow` (long calls)."""
    path = write_config(
        tmp_path, upstream, spec=KEY_SPEC, tools="tools:\n  createPayment: {requires_approval: true}\n"
    )
    text = path.read_text(encoding="utf-8")
    slow = text.split("apis:\n", 1)[1].split("    tools:")[0].replace("  shop:", "  slow:", 1)
    path.write_text(
        text.replace("apis:\n", "apis:\n" + slow + "    calls: {long: true, wait: 0.5}\n", 1)
        + f"approvals: {{wait: 30}}\nstore: '{store}'\n",
        encoding="utf-8",
    )
    return path


def code_of(result: types.CallToolResult) -> str | None:
    texts = [block.text for block in result.content if isinstance(block, types.TextContent)]
    found = texts[0].split("]", 1)[0].lstrip("[") if texts and texts[0].startswith("[") else None
    return found if result.is_error else None


@pytest.mark.parametrize("how", ["hang", "down"])
async def test_while_the_store_fails_calls_that_need_it_answer_store_unavailable_and_others_go_on(
    tmp_path: Path, upstream: Upstream, gate: Gate, outage: Outage, how: str
) -> None:
    gate.open.set()
    config = outage_config(tmp_path, upstream, outage.url)
    async with (
        in_process_gateway(config, deadline=20) as (app, _),
        http_client(f"{IN_PROCESS}/shop/mcp", transport=app, mode=STATELESS) as shop,
        http_client(f"{IN_PROCESS}/slow/mcp", transport=app, mode=STATELESS) as slow,
    ):
        await shop.list_tools()
        await slow.list_tools()
        assert code_of(await shop.call_tool("createOrder", {**KEYED, "idempotency_key": "warm"})) is None
        (outage.hang if how == "hang" else outage.down)()
        try:
            results: dict[str, types.CallToolResult] = {}
            with anyio.fail_after(BOUND):
                results["plain"] = await shop.call_tool("getProduct", {"id": "p1"})
            for name, client, tool, arguments in (
                ("keyed", shop, "createOrder", KEYED),
                ("approval", shop, "createPayment", {"amount": 5}),
                ("long", slow, "getProduct", {"id": "p1"}),
                ("result", slow, "get_call_result", {"call_id": "0" * 32}),
            ):
                with anyio.fail_after(BOUND):
                    results[name] = await client.call_tool(tool, arguments)
        finally:
            outage.back()
    assert results.pop("plain").structured_content == {"id": "p1", "name": "Mug"}
    assert {name: code_of(result) for name, result in results.items()} == dict.fromkeys(
        results, "store-unavailable"
    ), {name: text(result) for name, result in results.items()}
    # each has something to look up (a key, an approval, a long call): an earlier identical call may have
    # been sent, and the store cannot say, so none claims that nothing was sent
    assert all("until the store is back" in text(result) for result in results.values())
    assert not any("nothing was sent" in text(result) for result in results.values())
    assert [request.path for request in upstream.requests] == ["/shops/s1/orders", "/products/p1"]


async def test_a_store_that_hangs_after_the_send_says_the_request_was_sent_and_not_recorded(
    tmp_path: Path, upstream: Upstream, gate: Gate, outage: Outage
) -> None:
    config = outage_config(tmp_path, upstream, outage.url)
    async with (
        in_process_gateway(config, deadline=20) as (app, _),
        http_client(f"{IN_PROCESS}/shop/mcp", transport=app) as shop,
    ):
        await shop.list_tools()
        answers: list[types.CallToolResult] = []

        async def order() -> None:
            answers.append(await shop.call_tool("createOrder", KEYED))

        try:
            with anyio.fail_after(BOUND + 30):
                async with anyio.create_task_group() as tasks:
                    tasks.start_soon(order)
                    await anyio.to_thread.run_sync(gate.arrived.wait, 30)  # claimed and on the wire
                    outage.hang()
                    gate.open.set()
        finally:
            outage.back()
    (answer,) = answers
    assert code_of(answer) == "store-unavailable", text(answer)
    assert "the request was sent (the API answered 201)" in text(answer)
    assert len(upstream.requests) == 1


@pytest.mark.parametrize("how", ["hang", "down"])
async def test_a_burst_of_calls_while_the_store_fails_gets_store_unavailable_for_each(
    tmp_path: Path, upstream: Upstream, gate: Gate, outage: Outage, how: str
) -> None:
    gate.open.set()
    config = outage_config(tmp_path, upstream, outage.url)
    results: list[types.CallToolResult] = []
    async with in_process_gateway(config, deadline=20) as (app, _):
        async with http_client(f"{IN_PROCESS}/shop/mcp", transport=app, mode=STATELESS) as shop:
            await shop.list_tools()
            assert code_of(await shop.call_tool("createOrder", {**KEYED, "idempotency_key": "warm"})) is None
        (outage.hang if how == "hang" else outage.down)()

        async def agent(number: int) -> None:
            async with (
                http_client(f"{IN_PROCESS}/shop/mcp", transport=app, mode=STATELESS) as shop,
                http_client(f"{IN_PROCESS}/slow/mcp", transport=app, mode=STATELESS) as slow,
            ):
                await shop.list_tools()
                await slow.list_tools()
                for turn in range(3):
                    key = f"burst-{number}-{turn}"
                    results.append(await shop.call_tool("createOrder", {**KEYED, "idempotency_key": key}))
                    results.append(await shop.call_tool("createPayment", {"amount": number * 10 + turn}))
                    results.append(await slow.call_tool("getProduct", {"id": f"p{number}-{turn}"}))

        try:
            with anyio.fail_after(BOUND * 9):
                async with anyio.create_task_group() as tasks:
                    for number in range(8):
                        tasks.start_soon(agent, number)
        finally:
            outage.back()
    codes = [code_of(result) for result in results]
    assert codes == ["store-unavailable"] * len(codes), [
        text(r) for r in results if code_of(r) != "store-unavailable"
    ][:3]
    assert len(upstream.requests) == 1


async def test_a_store_failing_while_the_clients_user_is_asked_ends_in_store_unavailable(
    tmp_path: Path, upstream: Upstream, gate: Gate, outage: Outage
) -> None:
    from tests.gateway._elicit import CLIENT_KEY, ORDER, elicit_config

    gate.open.set()
    config = elicit_config(tmp_path, upstream, wait=3)
    config.write_text(
        config.read_text(encoding="utf-8").replace(f"sqlite:///{tmp_path / 'state.db'}", outage.url),
        encoding="utf-8",
    )
    released = anyio.Event()

    async def user(context: object, params: types.ElicitRequestParams) -> types.ElicitResult:
        outage.hang()  # the store hangs while the user reads the question, who never answers
        await released.wait()
        return types.ElicitResult(action="accept")

    try:
        async with (
            running_gateway(config) as (base, _),
            http_client(f"{base}/mcp", key=CLIENT_KEY, elicitation_callback=user) as client,
        ):
            await client.list_tools()
            with anyio.fail_after(BOUND + 5):
                result = await client.call_tool("createOrder", ORDER)
            released.set()
    finally:
        outage.back()
    assert code_of(result) == "store-unavailable", text(result)
    assert upstream.requests == []
