"""Client keys (401/403), bindings and per-client secrets over Streamable HTTP."""

from __future__ import annotations

from pathlib import Path

import mcp_types as types
import pytest
from click.testing import CliRunner

from specbridge.access import key_sha256
from specbridge.cli import app
from tests.gateway._clients import AUTH, CLIENTS, KEY_A, KEY_B, KEY_OTHER
from tests.support.gateway import (
    IN_PROCESS,
    http_client,
    in_process_gateway,
    raw_post,
    running_gateway,
    write_config,
)
from tests.support.upstream import Upstream, echo, json_response

ERAS = ["legacy", "2026-07-28"]


@pytest.fixture(autouse=True)
def upstream_routes(upstream: Upstream) -> None:
    """What this module's upstream answers (the upstream itself: tests/conftest.py)."""
    upstream.route("/shops/shop-1/orders", echo)
    upstream.route("/shops/shop-2/orders", echo)
    upstream.route("/notes", json_response({"ok": True}))


@pytest.fixture
def config(tmp_path: Path, upstream: Upstream, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SHOP_TOKEN_A", "upstream-token-a")
    monkeypatch.setenv("SHOP_TOKEN_B", "upstream-token-b")
    return write_config(tmp_path, upstream, extra=AUTH, clients=CLIENTS)


async def test_a_request_without_a_key_is_401(config: Path) -> None:
    async with running_gateway(config) as (base, _):
        response = await raw_post(f"{base}/shop/mcp")
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "key-missing"
    assert response.headers["www-authenticate"].startswith("Bearer")


async def test_a_wrong_key_is_401(config: Path) -> None:
    async with running_gateway(config) as (base, _):
        response = await raw_post(f"{base}/shop/mcp", {"Authorization": "Bearer sbk_not-a-key"})
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "key-invalid"


async def test_a_key_for_another_api_is_403(config: Path) -> None:
    async with running_gateway(config) as (base, _):
        response = await raw_post(f"{base}/shop/mcp", {"X-Api-Key": KEY_OTHER})
        allowed = await raw_post(f"{base}/other/mcp", {"X-Api-Key": KEY_OTHER})
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "api-forbidden"
    assert allowed.status_code == 200


async def test_with_several_apis_there_is_no_bare_mcp_endpoint(config: Path) -> None:
    async with running_gateway(config) as (base, _):
        response = await raw_post(f"{base}/mcp", {"X-Api-Key": KEY_A})
    assert response.status_code == 404


@pytest.mark.parametrize("era", ERAS)
async def test_a_bound_argument_vanishes_from_that_clients_schema(config: Path, era: str) -> None:
    async with running_gateway(config) as (base, _):
        async with http_client(f"{base}/shop/mcp", mode=era, key=KEY_A) as client:
            bound = {tool.name: tool for tool in (await client.list_tools()).tools}
        async with http_client(f"{base}/other/mcp", mode=era, key=KEY_OTHER) as client:
            unbound = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert "shopId" not in bound["createOrder"].input_schema["properties"]
    assert "shopId" not in bound["createOrder"].input_schema.get("required", [])
    assert "shopId" in unbound["createOrder"].input_schema["properties"]


@pytest.mark.parametrize("era", ERAS)
async def test_each_client_calls_with_its_bindings_and_its_own_secret_and_never_its_key(
    config: Path, upstream: Upstream, era: str
) -> None:
    async with running_gateway(config) as (base, _):
        for key in (KEY_A, KEY_B):
            async with http_client(f"{base}/shop/mcp", mode=era, key=key) as client:
                result = await client.call_tool("createOrder", {"product": "p1", "quantity": 2})
                assert result.is_error is False, result.content
    first, second = (r for r in upstream.requests if r.path.startswith("/shops/"))
    assert first.path == "/shops/shop-1/orders"
    assert first.headers["x-shop-token"] == "upstream-token-a"
    assert second.path == "/shops/shop-2/orders"
    assert second.headers["x-shop-token"] == "upstream-token-b"
    for request in upstream.requests:
        everything = repr(request.raw_headers) + request.body.decode("utf-8", "replace")
        assert KEY_A not in everything and KEY_B not in everything
        assert "authorization" not in request.headers and "x-api-key" not in request.headers


@pytest.mark.parametrize("era", ERAS)
async def test_a_client_that_supplies_a_bound_argument_is_refused(
    config: Path, upstream: Upstream, era: str
) -> None:
    async with (
        in_process_gateway(config) as (asgi, _),
        http_client(f"{IN_PROCESS}/shop/mcp", mode=era, key=KEY_A, transport=asgi) as client,
    ):
        result = await client.call_tool("createOrder", {"shopId": "shop-2", "product": "p", "quantity": 1})
    assert result.is_error is True
    assert isinstance(result.content[0], types.TextContent)
    assert result.content[0].text.startswith("[")
    assert not [r for r in upstream.requests if r.path.startswith("/shops/")]


def test_keys_new_prints_a_key_once_and_the_config_lines_with_its_hash() -> None:
    result = CliRunner().invoke(app, ["keys", "new", "--client", "support-bot", "--api", "orders"])
    assert result.exit_code == 0, result.output
    key = result.output.split("key: ", 1)[1].split()[0]
    assert key.startswith("sbk_") and len(key) > 40
    assert f'key_sha256: "{key_sha256(key)}"' in result.output
    assert "support-bot:" in result.output and "apis: [orders]" in result.output
    assert result.output.count(key) == 1


def test_serve_refuses_a_non_loopback_address_without_client_keys(tmp_path: Path) -> None:
    (tmp_path / "shop.yaml").write_text("openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths: {}\n")
    result = CliRunner().invoke(
        app,
        ["serve", str(tmp_path / "shop.yaml"), "--base-url", "http://127.0.0.1:9", "--transport", "http",
         "--host", "0.0.0.0", "--port", "0"],
    )  # fmt: skip
    assert result.exit_code == 3
    assert "serve-unsafe-bind" in result.output
