"""Reload while serving: a changed document or config is picked up and clients are told.

The tests drive `Gateway.reload` themselves (the watcher's poll is set far beyond any test), so none
depends on a poll interval; `reload_changed`, what the watcher calls, has its own test at the end."""

from __future__ import annotations

import logging
from pathlib import Path

import anyio
import mcp_types as types
import pytest

from specbridge.access import key_sha256
from specbridge.config import load_config
from specbridge.gateway import Gateway
from tests.support.gateway import EXTRA_OPERATION, SPEC, http_client, raw_post, running_gateway, write_config
from tests.support.upstream import Upstream, slow_drip, text_response

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


KEY_A = "sbk_test-key-for-client-a-reload"
KEY_B = "sbk_test-key-for-client-b-reload"


def _url_config(directory: Path, upstream: Upstream, *, clients: tuple[str, ...], tools: str = "") -> Path:
    """A config whose API's document is at a URL of the upstream, with a key per client named."""
    keys = {"a": KEY_A, "b": KEY_B}
    listed = "".join(
        f'  client-{name}:\n    key_sha256: "{key_sha256(keys[name])}"\n    apis: [shop]\n'
        for name in clients
    )
    path = directory / "specbridge.yaml"
    path.write_text(
        f"apis:\n  shop:\n    spec: {upstream.url}/specs/shop.yaml\n    base_url: {upstream.url}\n"
        f'    egress: {{allow: ["{upstream.address}"]}}\n{tools}clients:\n{listed}',
        encoding="utf-8",
    )
    return path


async def test_a_document_server_that_drips_holds_no_reload_and_a_removed_key_stops_at_once(
    tmp_path: Path, upstream: Upstream
) -> None:
    upstream.route("/specs/shop.yaml", text_response(SPEC, content_type="application/yaml"))
    config = _url_config(tmp_path, upstream, clients=("a", "b"))
    async with running_gateway(config, poll_interval=NO_POLL) as (base, gateway):
        async with http_client(f"{base}/mcp", key=KEY_B) as client:
            assert "getLogo" in [tool.name for tool in (await client.list_tools()).tools]
        upstream.route("/specs/shop.yaml", slow_drip(interval=0.5, total=10_000))  # a byte every 0.5 s
        # the API's settings change (its document is read again) and client-b is removed
        disabled = "    tools: {getLogo: {disabled: true}}\n"
        _url_config(tmp_path, upstream, clients=("a",), tools=disabled)
        with anyio.fail_after(10):  # not the fetch's 30 s: the reload does not wait for the document
            assert await gateway.reload(load_config(config)) == ["shop"]
        refused = await raw_post(f"{base}/mcp", {"Authorization": f"Bearer {KEY_B}"})
        assert refused.status_code == 401 and refused.json()["error"]["code"] == "key-invalid"
        async with http_client(f"{base}/mcp", key=KEY_A) as client:  # the settings apply at once too
            assert "getLogo" not in [tool.name for tool in (await client.list_tools()).tools]
        # a later reload does not wait behind the read still dripping either
        _url_config(tmp_path, upstream, clients=("b",), tools=disabled)  # client-a removed, client-b back
        with anyio.fail_after(10):
            assert await gateway.reload(load_config(config)) == ["shop"]
        assert (await raw_post(f"{base}/mcp", {"Authorization": f"Bearer {KEY_A}"})).status_code == 401


async def test_a_document_read_apart_from_its_reload_is_swapped_in_when_it_arrives(
    tmp_path: Path, upstream: Upstream
) -> None:
    upstream.route("/specs/shop.yaml", text_response(SPEC, content_type="application/yaml"))
    config = _url_config(tmp_path, upstream, clients=("a",))
    arrived = anyio.Event()

    async def on_change(api: str) -> None:
        if gateway.state(api).toolset.get("extraThing") is not None:
            arrived.set()

    async with running_gateway(config, poll_interval=NO_POLL) as (base, gateway):
        gateway.on_change(on_change)
        upstream.route(
            "/specs/shop.yaml", text_response(SPEC + EXTRA_OPERATION, content_type="application/yaml")
        )
        _url_config(tmp_path, upstream, clients=("a",), tools="    tools: {getLogo: {disabled: true}}\n")
        assert await gateway.reload(load_config(config)) == ["shop"]
        with anyio.fail_after(10):
            await arrived.wait()
        async with http_client(f"{base}/mcp", key=KEY_A) as client:
            names = [tool.name for tool in (await client.list_tools()).tools]
        assert "extraThing" in names and "getLogo" not in names
