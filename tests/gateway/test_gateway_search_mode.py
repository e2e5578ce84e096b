"""Search mode and approvals over Streamable HTTP with the SDK client, against a real upstream."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import mcp_types as types
import pytest

from tests.gateway._harness import http_client, many_operations_spec, running_gateway, write_config
from tests.support.upstream import Upstream, json_response

ERAS = ["legacy", "2026-07-28"]


@pytest.fixture
def upstream() -> Iterator[Upstream]:
    with Upstream() as server:
        server.route("/products/p1", json_response({"id": "p1", "name": "Mug"}))
        server.route("/shops/s1/orders", json_response({"id": "o1"}, status=201))
        yield server


def text(result: types.CallToolResult) -> str:
    return " ".join(block.text for block in result.content if isinstance(block, types.TextContent))


@pytest.mark.parametrize("era", ERAS)
async def test_in_search_mode_the_list_is_two_tools_and_a_search_finds_the_right_one(
    tmp_path: Path, upstream: Upstream, era: str
) -> None:
    config = write_config(tmp_path, upstream, extra="search: on\n")
    async with running_gateway(config) as (base, _), http_client(f"{base}/mcp", mode=era) as client:
        listing = await client.list_tools()
        result = await client.call_tool("search_tools", {"query": "get one product", "limit": 2})
    assert [tool.name for tool in listing.tools] == ["search_tools", "call_tool"]
    assert result.is_error is False
    assert result.structured_content is not None
    found = result.structured_content["tools"]
    assert found[0]["name"] == "getProduct"
    assert "id" in found[0]["inputSchema"]["properties"]
    assert len(found) <= 2


@pytest.mark.parametrize("era", ERAS)
async def test_call_tool_makes_the_real_call_through_the_same_checks(
    tmp_path: Path, upstream: Upstream, era: str
) -> None:
    config = write_config(tmp_path, upstream, extra="search: on\n")
    async with running_gateway(config) as (base, _), http_client(f"{base}/mcp", mode=era) as client:
        called = await client.call_tool("call_tool", {"name": "getProduct", "arguments": {"id": "p1"}})
        refused = await client.call_tool("call_tool", {"name": "getProduct", "arguments": {"id": 5}})
        unknown = await client.call_tool("call_tool", {"name": "nope", "arguments": {}})
    assert called.is_error is False and called.structured_content == {"id": "p1", "name": "Mug"}
    assert refused.is_error is True and text(refused).startswith("[arguments-invalid]")
    assert unknown.is_error is True and "[tool-unknown]" in text(unknown) and "search_tools" in text(unknown)
    assert [request.target for request in upstream.requests] == ["/products/p1"]


async def test_search_tools_with_bad_arguments_names_them(tmp_path: Path, upstream: Upstream) -> None:
    config = write_config(tmp_path, upstream, extra="search: on\n")
    async with running_gateway(config) as (base, _), http_client(f"{base}/mcp") as client:
        result = await client.call_tool("search_tools", {"query": "", "limit": 99})
    assert result.is_error is True
    assert "query:" in text(result) and "limit:" in text(result)


async def test_auto_turns_search_mode_on_for_an_api_too_big_for_one_context(
    tmp_path: Path, upstream: Upstream
) -> None:
    config = write_config(tmp_path, upstream, spec=many_operations_spec(60))
    async with running_gateway(config) as (base, _), http_client(f"{base}/mcp") as client:
        listing = await client.list_tools()
    assert [tool.name for tool in listing.tools] == ["search_tools", "call_tool"]


async def test_auto_keeps_a_small_api_listed_in_full(tmp_path: Path, upstream: Upstream) -> None:
    config = write_config(tmp_path, upstream)
    async with running_gateway(config) as (base, _), http_client(f"{base}/mcp") as client:
        listing = await client.list_tools()
    assert "getProduct" in [tool.name for tool in listing.tools]


async def test_a_tool_that_requires_approval_is_refused_and_nothing_is_sent(
    tmp_path: Path, upstream: Upstream
) -> None:
    config = write_config(tmp_path, upstream, tools="tools:\n  createOrder: {requires_approval: true}\n")
    async with running_gateway(config) as (base, _), http_client(f"{base}/mcp") as client:
        result = await client.call_tool("createOrder", {"shopId": "s1", "product": "p1", "quantity": 1})
    assert result.is_error is True
    assert text(result).startswith("[approval-required]")
    assert upstream.requests == []


TAGGED = """\
openapi: 3.1.0
info: {title: Acme Orders API, version: '1'}
tags:
  - {name: Catalogue, description: What the shop sells.}
  - {name: Orders}
paths:
  /products/{id}:
    get:
      operationId: getProduct
      tags: [Catalogue]
      summary: Get one product
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses: {'200': {description: ok, content: {application/json: {schema: {type: object}}}}}
  /products:
    get: {operationId: listProducts, tags: [Catalogue], summary: List products, responses: {'200': {description: ok}}}
  /shops/{shopId}/orders:
    post:
      operationId: createOrder
      tags: [Orders]
      summary: Place an order
      parameters: [{name: shopId, in: path, required: true, schema: {type: string}}]
      responses: {'201': {description: created}}
"""


@pytest.fixture(autouse=True)
def _embeddings_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the semantic extra installed, tool vectors are cached under the user's cache folder."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


async def test_the_search_tool_names_the_documents_title_and_its_tags(
    tmp_path: Path, upstream: Upstream
) -> None:
    config = write_config(tmp_path, upstream, spec=TAGGED, extra="search: on\n")
    async with running_gateway(config) as (base, _), http_client(f"{base}/mcp") as client:
        listing = await client.list_tools()
    search = listing.tools[0]
    assert search.title == "Search the tools of Acme Orders API"
    assert search.description is not None
    assert search.description.startswith("Acme Orders API has 3 operations")
    assert "Its tags: Catalogue, Orders." in search.description
    assert "The api API" not in search.description and "shop API" not in search.description


async def test_a_search_answer_lists_the_apis_tags_with_their_counts(
    tmp_path: Path, upstream: Upstream
) -> None:
    config = write_config(tmp_path, upstream, spec=TAGGED, extra="search: on\n")
    async with running_gateway(config) as (base, _), http_client(f"{base}/mcp") as client:
        result = await client.call_tool("search_tools", {"query": "place an order"})
    assert result.structured_content is not None
    assert result.structured_content["tools"][0]["name"] == "createOrder"
    assert result.structured_content["tags"] == {"Catalogue": 2, "Orders": 1}
    assert "note" not in result.structured_content


async def test_a_tag_narrows_the_search_and_alone_lists_the_tags_tools(
    tmp_path: Path, upstream: Upstream
) -> None:
    config = write_config(tmp_path, upstream, spec=TAGGED, extra="search: on\n")
    async with running_gateway(config) as (base, _), http_client(f"{base}/mcp") as client:
        narrowed = await client.call_tool("search_tools", {"query": "order", "tag": "catalogue"})
        browsed = await client.call_tool("search_tools", {"tag": "Catalogue", "limit": 10})
    assert narrowed.structured_content is not None and browsed.structured_content is not None
    assert {tool["name"] for tool in narrowed.structured_content["tools"]} <= {"getProduct", "listProducts"}
    assert narrowed.structured_content["tag"] == "Catalogue"
    assert [tool["name"] for tool in browsed.structured_content["tools"]] == ["getProduct", "listProducts"]


async def test_a_search_that_matches_no_word_still_answers_and_says_the_match_is_weak(
    tmp_path: Path, upstream: Upstream
) -> None:
    config = write_config(tmp_path, upstream, spec=TAGGED, extra="search: on\n")
    async with running_gateway(config) as (base, _), http_client(f"{base}/mcp") as client:
        result = await client.call_tool("search_tools", {"query": "zzyzx qwv", "limit": 2})
    assert result.is_error is False
    assert result.structured_content is not None
    assert len(result.structured_content["tools"]) == 2
    assert "only the nearest" in result.structured_content["note"]
    assert "only the nearest" in text(result)


async def test_an_unknown_tag_is_said_and_every_tool_is_searched(tmp_path: Path, upstream: Upstream) -> None:
    config = write_config(tmp_path, upstream, spec=TAGGED, extra="search: on\n")
    async with running_gateway(config) as (base, _), http_client(f"{base}/mcp") as client:
        result = await client.call_tool("search_tools", {"query": "place an order", "tag": "Billing"})
    assert result.structured_content is not None
    assert result.structured_content["tools"][0]["name"] == "createOrder"
    assert "No tag is named 'Billing'" in result.structured_content["note"]


async def test_search_tools_without_a_query_or_a_tag_says_what_it_needs(
    tmp_path: Path, upstream: Upstream
) -> None:
    config = write_config(tmp_path, upstream, spec=TAGGED, extra="search: on\n")
    async with running_gateway(config) as (base, _), http_client(f"{base}/mcp") as client:
        result = await client.call_tool("search_tools", {"limit": 3})
    assert result.is_error is True
    assert text(result).startswith("[arguments-invalid]") and "query:" in text(result)
