"""Answers sized for a model, through the gateway (in process) and the official MCP client: the budget,
`fields` in the listing and the call, `answer-shortened` for a tool with an outputSchema, and images up to
1 MB as image content beside the description and the `file_id`."""

from __future__ import annotations

import base64
import re
from pathlib import Path

import mcp_types as types
import orjson
import pytest

from tests.support.gateway import IN_PROCESS, http_client, in_process_gateway, write_config
from tests.support.upstream import Upstream, binary_response, json_response

SPEC = """\
openapi: 3.1.0
info: {title: Shop, version: '1'}
paths:
  /orders:
    get:
      operationId: listOrders
      parameters:
        - {name: limit, in: query, schema: {type: integer}}
        - {name: starting_after, in: query, schema: {type: string}}
      responses:
        '200':
          description: A page of orders
          content:
            application/json:
              schema:
                type: object
                properties:
                  data: {type: array, items: {type: object, properties: {id: {type: string}}}}
                  has_more: {type: boolean}
  /photos/{name}:
    get:
      operationId: getPhoto
      parameters:
        - {name: name, in: path, required: true, schema: {type: string}}
      responses:
        '200': {description: A photo, content: {image/png: {schema: {type: string, format: binary}}}}
"""
ORDERS = {
    "object": "list",
    "data": [
        {
            "id": f"ord_{i:05d}",
            "customer": f"Customer {i}",
            "note": "Two mugs and a teapot, gift wrapped. " * 8,
        }
        for i in range(600)
    ],
    "has_more": True,
}
PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 3600  # about 900 KB
ERAS = ["legacy", "2026-07-28"]


@pytest.fixture(autouse=True)
def routes(upstream: Upstream) -> None:
    upstream.route("/orders", json_response(ORDERS))
    upstream.route("/photos/big", binary_response(PNG, "image/png"))
    upstream.route("/photos/huge", binary_response(PNG * 2, "image/png"))
    upstream.route("/photos/fake", binary_response(b"<html>not found</html>" * 10, "image/png"))


def _text(result: types.CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, types.TextContent))


@pytest.mark.parametrize("era", ERAS)
async def test_with_select_on_a_tool_lists_fields_and_no_output_schema_and_answers_what_was_asked(
    tmp_path: Path, upstream: Upstream, era: str
) -> None:
    config = write_config(tmp_path, upstream, spec=SPEC, extra="answers: {select: true}\n")
    async with (
        in_process_gateway(config) as (asgi, _),
        http_client(f"{IN_PROCESS}/mcp", mode=era, transport=asgi) as client,
    ):
        listing = {tool.name: tool for tool in (await client.list_tools()).tools}
        picked = await client.call_tool("listOrders", {"limit": 600, "fields": ["data/*/id", "has_more"]})
        whole = await client.call_tool("listOrders", {})
    orders = listing["listOrders"]
    assert orders.input_schema["properties"]["fields"]["type"] == "array"
    assert "fields" not in orders.input_schema.get("required", [])
    assert orders.output_schema is None
    assert "fields" not in listing["getPhoto"].input_schema["properties"]  # its answer is not JSON
    assert not picked.is_error and picked.structured_content is None
    assert orjson.loads(_text(picked)) == {
        "data": [{"id": o["id"]} for o in ORDERS["data"]],
        "has_more": True,
    }
    assert upstream.requests[0].query == [("limit", "600")]  # fields never reaches the API
    assert not whole.is_error
    note = _text(whole).partition("\n")[0]
    assert "of 600 items of `data` are shown" in note
    assert "`limit` at most" in note and "`starting_after`" in note and "`fields`" in note


@pytest.mark.parametrize("era", ERAS)
async def test_a_shortened_answer_of_a_tool_with_an_output_schema_reaches_the_client_as_an_error_it_accepts(
    tmp_path: Path, upstream: Upstream, era: str
) -> None:
    config = write_config(tmp_path, upstream, spec=SPEC, extra="answers: {max_tokens: 5000}\n")
    async with (
        in_process_gateway(config) as (asgi, _),
        http_client(f"{IN_PROCESS}/mcp", mode=era, transport=asgi) as client,
    ):
        listing = {tool.name: tool for tool in (await client.list_tools()).tools}
        result = await client.call_tool("listOrders", {})  # the SDK client checks outputSchema itself
    assert listing["listOrders"].output_schema is not None
    assert result.is_error and result.structured_content is None
    text = _text(result)
    assert text.startswith("[answer-shortened] The API answered 200 and the call succeeded")
    shown = orjson.loads(text.split("\n", 2)[2])
    assert shown["has_more"] is True and shown["data"] == ORDERS["data"][: len(shown["data"])]


@pytest.mark.parametrize("era", ERAS)
async def test_an_image_of_900_kb_is_image_content_beside_its_description_and_file_id(
    tmp_path: Path, upstream: Upstream, era: str
) -> None:
    config = write_config(tmp_path, upstream, spec=SPEC, extra="")
    config.write_text(config.read_text() + f"store: 'sqlite:///{tmp_path / 'state.db'}'\n", encoding="utf-8")
    async with in_process_gateway(config) as (asgi, gateway):
        await gateway.ledger.open()  # files are kept where the store is open
        async with http_client(f"{IN_PROCESS}/mcp", mode=era, transport=asgi) as client:
            big = await client.call_tool("getPhoto", {"name": "big"})
            huge = await client.call_tool("getPhoto", {"name": "huge"})
            fake = await client.call_tool("getPhoto", {"name": "fake"})
    images = [block for block in big.content if isinstance(block, types.ImageContent)]
    assert not big.is_error and len(images) == 1
    assert images[0].mime_type == "image/png" and base64.b64decode(images[0].data) == PNG
    assert f"an image (image/png, {len(PNG)} bytes)" in _text(big)
    assert re.search(r'"file_id": ?"[^"]+"', _text(big)), _text(big)
    # over 1 MB: cut by the read cap, so described only; bytes that are no PNG: never an image block
    assert not [block for block in huge.content if isinstance(block, types.ImageContent)]
    assert "more than" in _text(huge) and "image/png" in _text(huge)
    assert not [block for block in fake.content if isinstance(block, types.ImageContent)]
    assert "image/png (not text, so not shown)" in _text(fake)


async def test_in_search_mode_a_found_tool_shows_fields_and_call_tool_selects_with_it(
    tmp_path: Path, upstream: Upstream
) -> None:
    config = write_config(tmp_path, upstream, spec=SPEC, extra="search: on\nanswers: {select: true}\n")
    async with (
        in_process_gateway(config) as (asgi, _),
        http_client(f"{IN_PROCESS}/mcp", transport=asgi) as client,
    ):
        found = await client.call_tool("search_tools", {"query": "list orders"})
        called = await client.call_tool(
            "call_tool", {"name": "listOrders", "arguments": {"fields": ["data/*/id"], "limit": 2}}
        )
    assert found.structured_content is not None
    schemas = {tool["name"]: tool["inputSchema"] for tool in found.structured_content["tools"]}
    assert "fields" in schemas["listOrders"]["properties"]
    assert not called.is_error
    assert orjson.loads(_text(called)) == {"data": [{"id": o["id"]} for o in ORDERS["data"]]}
    assert upstream.requests[-1].query == [("limit", "2")]
