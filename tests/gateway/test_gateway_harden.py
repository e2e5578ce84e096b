"""Hardening findings (issue 9) in the gateway: each test here failed before its fix."""

from __future__ import annotations

import logging
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from starlette.types import Message, Receive, Scope, Send

from specbridge._errors import ErrorCode, SpecbridgeError
from specbridge.access import key_sha256
from specbridge.config import load_config
from specbridge.gateway import Gateway
from specbridge.gateway import _http as http_module
from tests.support.gateway import http_client, running_gateway, write_config
from tests.support.upstream import Upstream, json_response


@pytest.fixture(autouse=True)
def upstream_routes(upstream: Upstream) -> None:
    """What this module's upstream answers (the upstream itself: tests/conftest.py)."""
    upstream.route("/products/p1", json_response({"id": "p1", "name": "Mug"}))


@pytest.fixture
def config(tmp_path: Path, upstream: Upstream) -> Path:
    return write_config(tmp_path, upstream)


# -- /healthz and /metrics: the same Host and Origin checks as the MCP endpoint ------------------------


@pytest.mark.parametrize("route", ["/healthz", "/metrics"])
async def test_a_foreign_host_header_gets_421_from_health_and_metrics_on_loopback(
    config: Path, route: str
) -> None:
    async with running_gateway(config) as (base, _), httpx2.AsyncClient() as plain:
        foreign = await plain.get(f"{base}{route}", headers={"Host": "rebind.example"})
        local = await plain.get(f"{base}{route}", headers={"Host": base.removeprefix("http://")})
        named = await plain.get(f"{base}{route}", headers={"Host": "localhost"})
    assert foreign.status_code == 421
    assert foreign.json()["error"]["code"] == "host-refused"
    assert "shop" not in foreign.text
    assert local.status_code == 200 and named.status_code == 200


@pytest.mark.parametrize("route", ["/healthz", "/metrics"])
async def test_a_foreign_browser_origin_gets_403_from_health_and_metrics(config: Path, route: str) -> None:
    async with running_gateway(config) as (base, _), httpx2.AsyncClient() as plain:
        response = await plain.get(f"{base}{route}", headers={"Origin": "https://evil.example"})
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "origin-refused"


# -- a reload never opens a network-bound gateway ------------------------------------------------------

KEY = "sbk_test-key-for-the-only-client"
ONE_CLIENT = f"""\
clients:
  only:
    key_sha256: "{key_sha256(KEY)}"
    apis: [shop]
"""


async def test_a_reload_that_removes_the_last_client_of_a_network_bound_gateway_is_refused(
    tmp_path: Path, upstream: Upstream, caplog: pytest.LogCaptureFixture
) -> None:
    path = write_config(tmp_path, upstream, clients=ONE_CLIENT)
    gateway = Gateway(load_config(path), config_path=str(path), host="0.0.0.0")
    await gateway.start()
    try:
        before = gateway.snapshot
        write_config(tmp_path, upstream)  # `clients:` emptied
        with caplog.at_level(logging.ERROR, logger="specbridge.gateway"):
            assert await gateway.reload(load_config(path)) == []
        assert gateway.snapshot is before
        assert set(gateway.clients) == {"only"}
        refused = [r for r in caplog.records if "reload refused" in r.getMessage()]
        assert refused and refused[0].fields["code"] == "serve-unsafe-bind"  # type: ignore[attr-defined]
        assert "0.0.0.0" in refused[0].fields["reason"]  # type: ignore[attr-defined]
    finally:
        await gateway.aclose()


async def test_the_same_reload_on_loopback_is_served(tmp_path: Path, upstream: Upstream) -> None:
    path = write_config(tmp_path, upstream, clients=ONE_CLIENT)
    gateway = Gateway(load_config(path), config_path=str(path), host="127.0.0.1")
    await gateway.start()
    try:
        write_config(tmp_path, upstream)
        await gateway.reload(load_config(path))
        assert dict(gateway.clients) == {}
    finally:
        await gateway.aclose()


async def test_a_network_bound_gateway_without_clients_does_not_start(
    tmp_path: Path, upstream: Upstream
) -> None:
    path = write_config(tmp_path, upstream)
    gateway = Gateway(load_config(path), host="192.0.2.10")
    with pytest.raises(SpecbridgeError) as refused:
        await gateway.start()
    assert refused.value.code == ErrorCode.SERVE_UNSAFE_BIND


# -- config, clients and API state change as one unit --------------------------------------------------

KEY_A = "sbk_test-key-for-alice"
KEY_B = "sbk_test-key-for-bob"


def _two_clients(alice_secret: str, bob_secret: str) -> str:
    return f"""\
clients:
  alice:
    key_sha256: "{key_sha256(KEY_A)}"
    apis: [shop]
    secrets: {{shop: {alice_secret}}}
  bob:
    key_sha256: "{key_sha256(KEY_B)}"
    apis: [shop]
    secrets: {{shop: {bob_secret}}}
"""


AUTH = "auth: {type: header, name: X-Shop-Token, secrets: {s1: env:TOKEN_ONE, s2: env:TOKEN_TWO}}\n"
# The same tokens under swapped secret ids: in the new config `s1` is bob's token.
AUTH_SWAPPED = "auth: {type: header, name: X-Shop-Token, secrets: {s1: env:TOKEN_TWO, s2: env:TOKEN_ONE}}\n"


async def test_a_call_authenticated_before_a_reload_uses_that_configs_secrets_throughout(
    tmp_path: Path, upstream: Upstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reload lands between the key check and the tool call (the window the review hit): alice's
    secret id `s1` must not be looked up in the new config, where `s1` is bob's token."""
    monkeypatch.setenv("TOKEN_ONE", "token-of-alice")
    monkeypatch.setenv("TOKEN_TWO", "token-of-bob")
    path = write_config(tmp_path, upstream, extra=AUTH, clients=_two_clients("s1", "s2"))
    (tmp_path / "next").mkdir()
    swapped = write_config(tmp_path / "next", upstream, extra=AUTH_SWAPPED, clients=_two_clients("s2", "s1"))
    reloaded = anyio.Event()
    gateways: list[Gateway] = []

    class ReloadFirst(StreamableHTTPSessionManager):
        """The SDK's manager, except that a `tools/call` waits for a reload before it is handled."""

        async def handle_request(self, scope: Scope, receive: Receive, send: Send) -> None:
            messages: list[Message] = []
            if scope["method"] == "POST":
                while not messages or messages[-1].get("more_body"):
                    messages.append(await receive())
            if not reloaded.is_set() and b'"tools/call"' in b"".join(m.get("body", b"") for m in messages):
                await gateways[0].reload(load_config(swapped))
                reloaded.set()

            async def replay() -> Message:
                return messages.pop(0) if messages else await receive()

            await super().handle_request(scope, replay, send)

    monkeypatch.setattr(http_module, "StreamableHTTPSessionManager", ReloadFirst)
    async with running_gateway(path) as (base, gateway), http_client(f"{base}/mcp", key=KEY_A) as client:
        gateways.append(gateway)
        result = await client.call_tool("listNotes", {})
        assert reloaded.is_set()
        later = await client.call_tool("listNotes", {})
    assert not result.is_error, result
    tokens = [request.headers.get("x-shop-token") for request in upstream.requests]
    # Under either config alice's token is hers; only a mix of the two would send bob's.
    assert tokens == ["token-of-alice", "token-of-alice"]
    assert not later.is_error


async def test_a_config_change_while_the_document_is_broken_applies_to_the_last_good_document(
    tmp_path: Path, upstream: Upstream
) -> None:
    path = write_config(tmp_path, upstream)
    gateway = Gateway(load_config(path), config_path=str(path))
    await gateway.start()
    try:
        write_config(tmp_path, upstream, tools="tools: {getLogo: {disabled: true}}\n")
        (tmp_path / "shop.yaml").write_text("openapi: [broken\n", encoding="utf-8")
        assert await gateway.reload(load_config(path), documents={"shop"}) == ["shop"]
        names = [tool.name for tool in gateway.state("shop").toolset.tools]
        assert "getLogo" not in names and "getProduct" in names
        assert gateway.state("shop").api == gateway.config.apis["shop"]
    finally:
        await gateway.aclose()


async def test_serving_http_tells_the_gateway_its_bound_address_for_later_reloads(config: Path) -> None:
    async with running_gateway(config) as (_, gateway):
        assert gateway.host == "127.0.0.1"


async def test_a_reload_without_the_client_a_stdio_gateway_acts_as_is_refused(
    tmp_path: Path, upstream: Upstream
) -> None:
    """Otherwise its calls would go on without the client's bindings, under the API's own credential."""
    path = write_config(tmp_path, upstream, clients=ONE_CLIENT)
    gateway = Gateway(load_config(path), config_path=str(path), stdio_client="only")
    await gateway.start()
    try:
        write_config(tmp_path, upstream)
        assert await gateway.reload(load_config(path)) == []
        assert gateway.stdio_client is not None and gateway.stdio_client.id == "only"
    finally:
        await gateway.aclose()
