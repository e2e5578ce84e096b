"""Reload while serving: a changed document or config is picked up and clients are told.

The tests drive `Gateway.reload` themselves (the watcher's poll is set far beyond any test), so none
depends on a poll interval; `reload_changed`, what the watcher calls, has its own test at the end."""

from __future__ import annotations

import logging
from pathlib import Path

import anyio
import mcp_types as types
import pytest

from specbridge.config import load_config
from specbridge.gateway import Gateway
from tests.gateway._harness import EXTRA_OPERATION, SPEC, http_client, running_gateway, write_config
from tests.support.upstream import Upstream

NO_POLL = 3600.0  # the watcher never looks during a test; each test reloads itself


@pytest.fixture
def config(tmp_path: Path, upstream: Upstream) -> Path:
    return write_config(tmp_path, upstream)


async def test_a_new_operation_in_the_document_appears_and_handshake_clients_are_notified(
    config: Path,
) -> None:
    changed = anyio.Event()

    async def on_message(message: object) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            changed.set()

    async with (
        running_gateway(config, poll_interval=NO_POLL) as (base, gateway),
        http_client(f"{base}/mcp", mode="legacy", message_handler=on_message) as client,
    ):
        before = [tool.name for tool in (await client.list_tools()).tools]
        (config.parent / "shop.yaml").write_text(SPEC + EXTRA_OPERATION, encoding="utf-8")
        assert await gateway.reload(gateway.config, documents={"shop"}) == ["shop"]
        with anyio.fail_after(10):
            await changed.wait()
        after = [tool.name for tool in (await client.list_tools(cache_mode="bypass")).tools]
    assert "extraThing" not in before
    assert after == [*before, "extraThing"]


async def test_listen_streams_of_2026_clients_hear_that_the_tools_changed(config: Path) -> None:
    async with (
        running_gateway(config, poll_interval=NO_POLL) as (base, gateway),
        http_client(f"{base}/mcp", mode="2026-07-28") as client,
        client.listen(tools_list_changed=True) as subscription,
    ):
        (config.parent / "shop.yaml").write_text(SPEC + EXTRA_OPERATION, encoding="utf-8")
        assert await gateway.reload(gateway.config, documents={"shop"}) == ["shop"]
        with anyio.fail_after(10):
            async for _event in subscription:
                break
        after = [tool.name for tool in (await client.list_tools(cache_mode="bypass")).tools]
    assert "extraThing" in after


async def test_disabling_a_tool_in_the_config_takes_it_out(config: Path, upstream: Upstream) -> None:
    changed = anyio.Event()

    async def on_message(message: object) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            changed.set()

    async with (
        running_gateway(config, poll_interval=NO_POLL) as (base, gateway),
        http_client(f"{base}/mcp", mode="legacy", message_handler=on_message) as client,
    ):
        await client.list_tools()
        write_config(config.parent, upstream, tools="tools: {getLogo: {disabled: true}}\n")
        assert await gateway.reload(load_config(config)) == ["shop"]
        with anyio.fail_after(10):
            await changed.wait()
        after = [tool.name for tool in (await client.list_tools(cache_mode="bypass")).tools]
    assert "getLogo" not in after
    assert "getProduct" in after


async def test_a_broken_new_document_keeps_the_old_tools_and_logs_why(
    config: Path, caplog: pytest.LogCaptureFixture
) -> None:
    gateway = Gateway(load_config(config), config_path=str(config))
    await gateway.start()
    try:
        (config.parent / "shop.yaml").write_text("openapi: [this is not\n", encoding="utf-8")
        with caplog.at_level(logging.ERROR, logger="specbridge.gateway"):
            changed = await gateway.reload_changed()
        assert changed == []
        assert len(gateway.state("shop").toolset.tools) == 5
        assert any("document reload failed" in record.getMessage() for record in caplog.records)
        (config.parent / "shop.yaml").write_text(SPEC + EXTRA_OPERATION, encoding="utf-8")
        assert await gateway.reload_changed() == ["shop"]
        assert len(gateway.state("shop").toolset.tools) == 6
    finally:
        await gateway.aclose()
