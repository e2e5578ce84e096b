"""The gateway over Streamable HTTP, with the official SDK client, in both protocol eras."""

from __future__ import annotations

import base64
import logging
from pathlib import Path

import httpx2
import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError

from specbridge.call import CallResult
from tests.support.gateway import (
    IN_PROCESS,
    PNG,
    http_client,
    in_process_gateway,
    many_operations_spec,
    raw_post,
    running_gateway,
    write_config,
)
from tests.support.upstream import Upstream, binary_response, json_response, slow_drip, text_response

ERAS = ["legacy", "2026-07-28"]


@pytest.fixture(autouse=True)
def upstream_routes(upstream: Upstream) -> None:
    """What this module's upstream answers (the upstream itself: tests/conftest.py)."""
    upstream.route("/products/p1", json_response({"id": "p1", "name": "Mug"}))
    upstream.route("/products/gone", json_response({"message": "no such product"}, status=404))
    upstream.route("/products/odd", json_response([{"id": "odd"}]))
    upstream.route("/notes", text_response("buy milk"))
    upstream.route("/logo", binary_response(PNG, "image/png"))
    upstream.route("/slow", slow_drip(interval=0.5, total=1_000_000))


@pytest.fixture
def config(tmp_path: Path, upstream: Upstream) -> Path:
    return write_config(tmp_path, upstream)


@pytest.mark.parametrize("era", ERAS)
async def test_tools_are_listed_with_their_hints_and_output_schema(config: Path, era: str) -> None:
    async with (
        in_process_gateway(config) as (asgi, _),
        http_client(f"{IN_PROCESS}/mcp", mode=era, transport=asgi) as client,
    ):
        listing = await client.list_tools()
    tools = {tool.name: tool for tool in listing.tools}
    assert list(tools) == ["getProduct", "listNotes", "getLogo", "createOrder", "slowThing"]
    product = tools["getProduct"]
    assert product.annotations is not None and product.annotations.read_only_hint is True
    assert product.output_schema is not None and product.output_schema["type"] == "object"
    assert "id" in product.input_schema["properties"]
    assert listing.next_cursor is None


async def test_description_max_shortens_every_description_the_client_is_handed(
    tmp_path: Path, upstream: Upstream
) -> None:
    # For clients that hand MCP tools to OpenAI, which refuses a description over 1,024 characters.
    spec = many_operations_spec(3, description_bytes=3000)
    config = write_config(tmp_path, upstream, spec=spec, extra="search: off\ndescription_max: 1024\n")
    async with (
        in_process_gateway(config) as (asgi, _),
        http_client(f"{IN_PROCESS}/mcp", mode=ERAS[0], transport=asgi) as client,
    ):
        listing = await client.list_tools()
    descriptions = [tool.description or "" for tool in listing.tools]
    assert len(descriptions) == 3
    assert all(700 < len(text) <= 1024 for text in descriptions), [len(text) for text in descriptions]
    assert all(text.startswith("Thing ") and text.endswith("Returns 200: OK.") for text in descriptions)
    assert all("…" in text for text in descriptions)


@pytest.mark.parametrize("era", ERAS)
async def test_each_api_is_also_served_under_its_own_name(config: Path, era: str) -> None:
    async with (
        in_process_gateway(config) as (asgi, _),
        http_client(f"{IN_PROCESS}/shop/mcp", mode=era, transport=asgi) as client,
    ):
        listing = await client.list_tools()
    assert len(listing.tools) == 5


@pytest.mark.parametrize("era", ERAS)
async def test_a_json_object_answer_is_text_and_structured_content(config: Path, era: str) -> None:
    async with (
        in_process_gateway(config) as (asgi, _),
        http_client(f"{IN_PROCESS}/mcp", mode=era, transport=asgi) as client,
    ):
        result = await client.call_tool("getProduct", {"id": "p1"})
    assert result.is_error is False
    assert result.structured_content == {"id": "p1", "name": "Mug"}
    assert isinstance(result.content[0], types.TextContent)
    assert "Mug" in result.content[0].text


@pytest.mark.parametrize("era", ERAS)
async def test_a_text_answer_is_text_content(config: Path, era: str) -> None:
    async with (
        in_process_gateway(config) as (asgi, _),
        http_client(f"{IN_PROCESS}/mcp", mode=era, transport=asgi) as client,
    ):
        result = await client.call_tool("listNotes", {})
    assert result.is_error is False
    assert [block.text for block in result.content if isinstance(block, types.TextContent)] == ["buy milk"]


@pytest.mark.parametrize("era", ERAS)
async def test_an_image_answer_is_image_content(config: Path, era: str) -> None:
    async with (
        in_process_gateway(config) as (asgi, _),
        http_client(f"{IN_PROCESS}/mcp", mode=era, transport=asgi) as client,
    ):
        result = await client.call_tool("getLogo", {})
    images = [block for block in result.content if isinstance(block, types.ImageContent)]
    assert result.is_error is False
    assert len(images) == 1
    assert images[0].mime_type == "image/png"
    assert base64.b64decode(images[0].data) == PNG


@pytest.mark.parametrize("era", ERAS)
async def test_an_unknown_tool_is_json_rpc_invalid_params(config: Path, era: str) -> None:
    async with (
        in_process_gateway(config) as (asgi, _),
        http_client(f"{IN_PROCESS}/mcp", mode=era, transport=asgi) as client,
    ):
        with pytest.raises(MCPError) as caught:
            await client.call_tool("noSuchTool", {})
    assert caught.value.code == -32602


@pytest.mark.parametrize("era", ERAS)
async def test_bad_arguments_are_an_error_result_naming_the_code(
    config: Path, upstream: Upstream, era: str
) -> None:
    async with (
        in_process_gateway(config) as (asgi, _),
        http_client(f"{IN_PROCESS}/mcp", mode=era, transport=asgi) as client,
    ):
        result = await client.call_tool("createOrder", {"shopId": "s1", "product": "p1", "quantity": 0})
    assert result.is_error is True
    text = result.content[0]
    assert isinstance(text, types.TextContent)
    assert text.text.startswith("[arguments-invalid]")
    assert not [r for r in upstream.requests if r.path.startswith("/shops")]


@pytest.mark.parametrize("era", ERAS)
async def test_an_api_failure_is_an_error_result(config: Path, era: str) -> None:
    async with (
        in_process_gateway(config) as (asgi, _),
        http_client(f"{IN_PROCESS}/mcp", mode=era, transport=asgi) as client,
    ):
        result = await client.call_tool("getProduct", {"id": "gone"})
    assert result.is_error is True
    text = result.content[0]
    assert isinstance(text, types.TextContent)
    assert text.text.startswith("[")
    assert "404" in text.text


@pytest.mark.parametrize("era", ERAS)
async def test_an_answer_that_does_not_fit_the_output_schema_is_an_error_result_with_the_answer(
    config: Path, era: str
) -> None:
    async with (
        in_process_gateway(config) as (asgi, _),
        http_client(f"{IN_PROCESS}/mcp", mode=era, transport=asgi) as client,
    ):
        result = await client.call_tool("getProduct", {"id": "odd"})
    assert result.is_error is True
    text = result.content[0]
    assert isinstance(text, types.TextContent)
    assert text.text.startswith("[response-unexpected]")
    assert '"odd"' in text.text


async def test_an_answer_with_null_where_the_document_forgot_nullable_is_still_a_success(
    config: Path, upstream: Upstream
) -> None:
    upstream.route("/products/p2", json_response({"id": "p2", "name": None}))
    async with (
        in_process_gateway(config) as (asgi, _),
        http_client(f"{IN_PROCESS}/mcp", transport=asgi) as client,
    ):
        result = await client.call_tool("getProduct", {"id": "p2"})
    assert result.is_error is False
    assert result.structured_content == {"id": "p2", "name": None}


@pytest.mark.parametrize("era", ERAS)
async def test_the_gateway_deadline_is_json_rpc_timeout(config: Path, era: str) -> None:
    async with (
        in_process_gateway(config, deadline=0.5) as (asgi, _),
        http_client(f"{IN_PROCESS}/mcp", mode=era, transport=asgi) as client,
    ):
        with pytest.raises(MCPError) as caught:
            await client.call_tool("slowThing", {})
    assert caught.value.code == -32003
    assert caught.value.message == "timeout"


@pytest.mark.parametrize("era", ERAS)
async def test_an_internal_fault_is_internal_error_and_says_nothing_more(config: Path, era: str) -> None:
    async with (
        in_process_gateway(config) as (asgi, gateway),
        http_client(f"{IN_PROCESS}/mcp", mode=era, transport=asgi) as client,
    ):

        async def broken(*args: object, **kwargs: object) -> CallResult:
            raise RuntimeError("token=hunter2 at /srv/secret.py line 3")

        gateway.state("shop").caller.send = broken  # type: ignore[method-assign]
        with pytest.raises(MCPError) as caught:
            await client.call_tool("listNotes", {})
    assert caught.value.code == -32603
    assert "hunter2" not in str(caught.value) and "secret.py" not in str(caught.value)


async def test_an_internal_fault_in_a_tool_call_is_logged_and_counted_once_with_its_tool(
    config: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with (
        in_process_gateway(config) as (asgi, gateway),
        http_client(f"{IN_PROCESS}/mcp", transport=asgi) as client,
    ):

        async def broken(*args: object, **kwargs: object) -> CallResult:
            raise RuntimeError("a fault inside the gateway")

        gateway.state("shop").caller.send = broken  # type: ignore[method-assign]
        with caplog.at_level(logging.ERROR, logger="specbridge.gateway"), pytest.raises(MCPError):
            await client.call_tool("listNotes", {})
        counted = gateway.metrics.errors["shop", "gateway-internal"]
    faults = [
        record for record in caplog.records if record.getMessage() == "request failed inside the gateway"
    ]
    assert len(faults) == 1 and counted == 1
    assert faults[0].fields["tool"] == "listNotes" and faults[0].fields["method"] == "tools/call"  # type: ignore[attr-defined]
    assert faults[0].exc_info is not None  # the traceback goes to the log, never to the client


@pytest.mark.parametrize("era", ERAS)
async def test_tools_list_is_paginated_in_a_stable_order(
    tmp_path: Path, upstream: Upstream, era: str
) -> None:
    config = write_config(tmp_path, upstream, spec=many_operations_spec(230), extra="search: off\n")
    async with (
        in_process_gateway(config) as (asgi, _),
        http_client(f"{IN_PROCESS}/mcp", mode=era, transport=asgi) as client,
    ):
        pages = []
        cursor = None
        while True:
            page = await client.list_tools(cursor=cursor, cache_mode="bypass")
            pages.append([tool.name for tool in page.tools])
            cursor = page.next_cursor
            if cursor is None:
                break
        again = await client.list_tools(cache_mode="bypass")
    assert [len(page) for page in pages] == [100, 100, 30]
    names = [name for page in pages for name in page]
    assert names == [f"thing{i:03d}" for i in range(230)]
    assert [tool.name for tool in again.tools] == pages[0]


async def test_a_page_of_big_tools_stays_under_what_sdk_clients_accept(
    tmp_path: Path, upstream: Upstream
) -> None:
    config = write_config(
        tmp_path, upstream, spec=many_operations_spec(30, description_bytes=40_000), extra="search: off\n"
    )
    async with (
        in_process_gateway(config) as (asgi, _),
        http_client(f"{IN_PROCESS}/mcp", transport=asgi) as client,
    ):
        sizes, cursor = [], None
        while True:
            page = await client.list_tools(cursor=cursor, cache_mode="bypass")
            sizes.append(len(page.tools))
            cursor = page.next_cursor
            if cursor is None:
                break
    assert sum(sizes) == 30
    assert len(sizes) > 1


@pytest.mark.parametrize("era", ERAS)
async def test_a_cursor_the_gateway_did_not_give_is_invalid_params(config: Path, era: str) -> None:
    async with (
        in_process_gateway(config) as (asgi, _),
        http_client(f"{IN_PROCESS}/mcp", mode=era, transport=asgi) as client,
    ):
        with pytest.raises(MCPError) as caught:
            await client.list_tools(cursor="not-a-cursor", cache_mode="bypass")
    assert caught.value.code == -32602


async def test_a_2025_06_18_client_is_answered_in_its_own_version(config: Path) -> None:
    async with running_gateway(config) as (base, _):
        response = await raw_post(f"{base}/mcp")
    assert response.status_code == 200
    assert '"protocolVersion":"2025-06-18"' in response.text.replace(" ", "")
    assert '"listChanged":true' in response.text.replace(" ", "")


async def test_browser_origins_other_than_localhost_are_refused(config: Path) -> None:
    async with running_gateway(config) as (base, _):
        evil = await raw_post(f"{base}/mcp", {"Origin": "https://evil.example"})
        local = await raw_post(f"{base}/mcp", {"Origin": "http://localhost:6274"})
    assert evil.status_code == 403
    assert evil.json()["error"]["code"] == "origin-refused"
    assert local.status_code == 200


async def test_healthz_and_metrics_report_tools_calls_errors_and_latency(config: Path) -> None:
    async with running_gateway(config) as (base, _):
        async with http_client(f"{base}/mcp") as client:
            await client.call_tool("getProduct", {"id": "p1"})
            await client.call_tool("getProduct", {"id": "gone"})
        async with httpx2.AsyncClient() as plain:
            health = await plain.get(f"{base}/healthz")
            metrics = (await plain.get(f"{base}/metrics")).text
    assert health.json() == {"status": "ok", "apis": {"shop": 5}}
    assert 'specbridge_tool_calls_total{api="shop",tool="getProduct"} 2' in metrics
    assert 'specbridge_tool_errors_total{api="shop",code=' in metrics
    assert 'specbridge_upstream_latency_seconds_count{api="shop"} 2' in metrics
    assert 'specbridge_tools{api="shop"} 5' in metrics


async def test_logs_are_json_lines_without_argument_values_or_keys(config: Path) -> None:
    import io
    import json
    import logging

    from specbridge._logging import configure_logging

    stream = io.StringIO()
    handler = configure_logging(stream)
    try:
        async with (
            in_process_gateway(config) as (asgi, _),
            http_client(f"{IN_PROCESS}/mcp", transport=asgi) as client,
        ):
            await client.call_tool("getProduct", {"id": "p1-very-private-value"})
    finally:
        for name in ("specbridge.gateway", "mcp", "uvicorn.error"):
            logger = logging.getLogger(name)
            logger.removeHandler(handler)
            logger.propagate = True
            logger.setLevel(logging.NOTSET)
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    called = [line for line in lines if line["event"] == "tool called"]
    assert called and called[0]["tool"] == "getProduct" and called[0]["api"] == "shop"
    assert "private-value" not in stream.getvalue()
