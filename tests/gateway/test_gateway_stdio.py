"""The gateway over stdio (`python -m specbridge serve`), with the official SDK client, both eras."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

from tests.support.gateway import EXTRA_OPERATION, SPEC, write_config
from tests.support.upstream import Upstream, json_response

ERAS = ["legacy", "2026-07-28"]


@pytest.fixture(autouse=True)
def upstream_routes(upstream: Upstream) -> None:
    """What this module's upstream answers (the upstream itself: tests/conftest.py)."""
    upstream.route("/products/p1", json_response({"id": "p1", "name": "Mug"}))


def stdio_client(config: Path, mode: str, *extra: str, **options: object) -> Client:
    command = StdioServerParameters(
        command=sys.executable,
        args=["-m", "specbridge", "serve", "--config", str(config), *extra],
        env={**os.environ},
        cwd=str(config.parent),
    )
    return Client(command, mode=mode, **options)  # type: ignore[arg-type]


@pytest.mark.parametrize("era", ERAS)
async def test_tools_are_listed_and_called_over_stdio(tmp_path: Path, upstream: Upstream, era: str) -> None:
    config = write_config(tmp_path, upstream)
    async with stdio_client(config, era) as client:
        names = [tool.name for tool in (await client.list_tools()).tools]
        result = await client.call_tool("getProduct", {"id": "p1"})
        with pytest.raises(MCPError) as caught:
            await client.call_tool("noSuchTool", {})
    assert names == ["getProduct", "listNotes", "getLogo", "createOrder", "slowThing"]
    assert result.structured_content == {"id": "p1", "name": "Mug"}
    assert caught.value.code == -32602


async def test_a_stdio_client_hears_that_the_tools_changed(tmp_path: Path, upstream: Upstream) -> None:
    config = write_config(tmp_path, upstream)
    changed = anyio.Event()

    async def on_message(message: object) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            changed.set()

    async with stdio_client(config, "legacy", message_handler=on_message) as client:
        await client.list_tools()
        (tmp_path / "shop.yaml").write_text(SPEC + EXTRA_OPERATION, encoding="utf-8")
        with anyio.fail_after(15):
            await changed.wait()
        names = [tool.name for tool in (await client.list_tools(cache_mode="bypass")).tools]
    assert "extraThing" in names


async def test_stdio_can_act_as_one_client_with_its_bindings_and_secret(
    tmp_path: Path, upstream: Upstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.gateway._clients import AUTH, CLIENTS

    monkeypatch.setenv("SHOP_TOKEN_A", "upstream-token-a")
    monkeypatch.setenv("SHOP_TOKEN_B", "upstream-token-b")
    config = write_config(tmp_path, upstream, extra=AUTH, clients=CLIENTS)
    async with stdio_client(config, "legacy", "--api", "shop", "--client", "shop-a") as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        result = await client.call_tool("createOrder", {"product": "p1", "quantity": 1})
    assert "shopId" not in tools["createOrder"].input_schema["properties"]
    assert result.is_error is False, result.content
    (sent,) = [r for r in upstream.requests if r.path.startswith("/shops/")]
    assert sent.path == "/shops/shop-1/orders"
    assert sent.headers["x-shop-token"] == "upstream-token-a"


async def test_a_large_call_over_stdio_is_answered_and_the_session_goes_on(
    tmp_path: Path, upstream: Upstream
) -> None:
    """Over 4 KB of arguments: checked in the check worker, a process whose output does not reach the
    MCP channel on stdout (docs/calls.md, "Limits on one call")."""
    config = write_config(tmp_path, upstream)
    async with stdio_client(config, "legacy") as client:
        with anyio.fail_after(60):
            large = await client.call_tool("getProduct", {"id": 7, "note": "x" * 5_000})
            small = await client.call_tool("getProduct", {"id": "p1"})
    assert large.is_error
    assert "arguments-invalid" in str(large.content)
    assert small.structured_content == {"id": "p1", "name": "Mug"}
