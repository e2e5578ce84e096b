"""structuredContent for any JSON answer (MCP 2026-07-28, SEP-2106): a list answer of a tool whose document
promises a list is structured for a 2026 client (its tool declares that `outputSchema`, and the SDK client
checks the content against it), and text alone for a handshake-era client, whose revision wants objects."""

from __future__ import annotations

from pathlib import Path

import mcp_types as types
import pytest

from tests.support.gateway import IN_PROCESS, http_client, in_process_gateway, write_config
from tests.support.upstream import Upstream, json_response

SPEC = """\
openapi: 3.1.0
info: {title: Shop, version: '1'}
paths:
  /tags:
    get:
      operationId: listTags
      responses:
        '200':
          description: Every tag
          content:
            application/json:
              schema: {type: array, items: {type: object, properties: {name: {type: string}}}}
  /wrong:
    get:
      operationId: listWrong
      responses:
        '200':
          description: Promises a list
          content: {application/json: {schema: {type: array, items: {type: string}}}}
  /many:
    get:
      operationId: listMany
      responses:
        '200':
          description: A long list
          content: {application/json: {schema: {type: array, items: {type: string}}}}
"""
TAGS = [{"name": "mugs"}, {"name": "teapots"}]


@pytest.fixture(autouse=True)
def routes(upstream: Upstream) -> None:
    upstream.route("/tags", json_response(TAGS))
    upstream.route("/wrong", json_response({"not": "a list"}))
    upstream.route("/many", json_response([f"item {i} " * 20 for i in range(5000)]))


async def _session(
    config: Path, era: str, *calls: str
) -> tuple[dict[str, types.Tool], list[types.CallToolResult]]:
    async with (
        in_process_gateway(config) as (asgi, _),
        http_client(f"{IN_PROCESS}/mcp", mode=era, transport=asgi) as client,
    ):
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        results = [await client.call_tool(name, {}) for name in calls]
    return tools, results


async def test_a_list_answer_is_structured_for_a_2026_client_against_the_list_schema_it_was_shown(
    tmp_path: Path, upstream: Upstream
) -> None:
    config = write_config(tmp_path, upstream, spec=SPEC)
    tools, (tags,) = await _session(config, "2026-07-28", "listTags")
    assert tools["listTags"].output_schema is not None and tools["listTags"].output_schema["type"] == "array"
    assert not tags.is_error and tags.structured_content == TAGS


async def test_a_handshake_era_client_gets_the_list_as_text_and_no_list_schema(
    tmp_path: Path, upstream: Upstream
) -> None:
    config = write_config(tmp_path, upstream, spec=SPEC)
    tools, (tags,) = await _session(config, "legacy", "listTags")
    assert tools["listTags"].output_schema is None
    assert not tags.is_error and tags.structured_content is None
    assert isinstance(tags.content[0], types.TextContent) and '"teapots"' in tags.content[0].text


async def test_for_a_2026_client_an_answer_that_is_not_the_promised_list_or_is_shortened_is_an_error_it_accepts(
    tmp_path: Path, upstream: Upstream
) -> None:
    config = write_config(tmp_path, upstream, spec=SPEC)
    _, (wrong, many) = await _session(config, "2026-07-28", "listWrong", "listMany")
    assert wrong.is_error and isinstance(wrong.content[0], types.TextContent)
    assert wrong.content[0].text.startswith("[response-unexpected]")
    assert many.is_error and isinstance(many.content[0], types.TextContent)
    assert many.content[0].text.startswith("[answer-shortened] The API answered 200 and the call succeeded")
