"""Search mode over Streamable HTTP with the SDK client, the gateway in process (ASGI), against a real
upstream."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.gateway import (
    IN_PROCESS,
    http_client,
    in_process_gateway,
    many_operations_spec,
    text,
    write_config,
)
from tests.support.upstream import Upstream, json_response

ERAS = ["legacy", "2026-07-28"]


@pytest.fixture(autouse=True)
def upstream_routes(upstream: Upstream) -> None:
    """What this module's upstream answers (the upstream itself: tests/conftest.py)."""
    upstream.route("/products/p1", json_response({"id": "p1", "name": "Mug"}))
    upstream.route("/shops/s1/orders", json_response({"id": "o1"}, status=201))


@pytest.mark.parametrize("era", ERAS)
async def test_in_search_mode_the_list_is_two_tools_and_a_search_finds_the_right_one(
    tmp_path: Path, upstream: Upstream, era: str
) -> None:
    config = write_config(tmp_path, upstream, extra="search: on\n")
    async with (
        in_process_gateway(config) as (asgi, _),
        http_client(f"{IN_PROCESS}/mcp", mode=era, transport=asgi) as client,
    ):
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
    async with (
        in_process_gateway(config) as (asgi, _),
        http_client(f"{IN_PROCESS}/mcp", mode=era, transport=asgi) as client,
    ):
        called = await client.call_tool("call_tool", {"name": "getProduct", "arguments": {"id": "p1"}})
        refused = await client.call_tool("call_tool", {"name": "getProduct", "arguments": {"id": 5}})
        unknown = await client.call_tool("call_tool", {"name": "nope", "arguments": {}})
    assert called.is_error is False and called.structured_content == {"id": "p1", "name": "Mug"}
    assert refused.is_error is True and text(refused).startswith("[arguments-invalid]")
    assert unknown.is_error is True and "[tool-unknown]" in text(unknown) and "search_tools" in text(unknown)
    assert [request.target for request in upstream.requests] == ["/products/p1"]


async def test_search_tools_with_bad_arguments_names_them(tmp_path: Path, upstream: Upstream) -> None:
    config = write_config(tmp_path, upstream, extra="search: on\n")
    async with (
        in_process_gateway(config) as (asgi, _),
        http_client(f"{IN_PROCESS}/mcp", transport=asgi) as client,
    ):
        result = await client.call_tool("search_tools", {"query": "", "limit": 99})
    assert result.is_error is True
    assert "query:" in text(result) and "limit:" in text(result)


async def test_auto_turns_search_mode_on_for_an_api_too_big_for_one_context(
    tmp_path: Path, upstream: Upstream
) -> None:
    config = write_config(tmp_path, upstream, spec=many_operations_spec(60))
    async with (
        in_process_gateway(config) as (asgi, _),
        http_client(f"{IN_PROCESS}/mcp", transport=asgi) as client,
    ):
        listing = await client.list_tools()
    assert [tool.name for tool in listing.tools] == ["search_tools", "call_tool"]


async def test_auto_keeps_a_small_api_listed_in_full(tmp_path: Path, upstream: Upstream) -> None:
    config = write_config(tmp_path, upstream)
    async with (
        in_process_gateway(config) as (asgi, _),
        http_client(f"{IN_PROCESS}/mcp", transport=asgi) as client,
    ):
        listing = await client.list_tools()
    assert "getProduct" in [tool.name for tool in listing.tools]


async def test_search_mode_builds_its_index_when_first_needed_not_at_start(
    tmp_path: Path, upstream: Upstream
) -> None:
    config = write_config(tmp_path, upstream, extra="search: on\n")
    async with in_process_gateway(config) as (asgi, gateway):
        search = gateway.state("shop").search
        assert search is not None and not search.ready
        async with http_client(f"{IN_PROCESS}/mcp", transport=asgi) as client:
            result = await client.call_tool("search_tools", {"query": "get one product"})
        assert search.ready
    assert result.is_error is False


async def test_each_hit_names_its_producers_and_the_first_step_comes_with_the_last(
    tmp_path: Path, upstream: Upstream
) -> None:
    from tests.support.movies import MOVIES

    config = write_config(tmp_path, upstream, spec=MOVIES, extra="search: on\n")
    async with (
        in_process_gateway(config) as (asgi, _),
        http_client(f"{IN_PROCESS}/mcp", transport=asgi) as client,
    ):
        query = "who directed this film, the crew of it"
        result = await client.call_tool("search_tools", {"query": query, "limit": 2})
    assert result.structured_content is not None
    found = {tool["name"]: tool for tool in result.structured_content["tools"]}
    assert (
        len(found) == 3
    )  # the two best hits, and the producer added after the first (never in place of one)
    assert list(found)[:2] == ["movie_credits", "search_movie"]
    assert found["movie_credits"]["producers"] == {"movie_id": ["search_movie", "movie_top_rated"]}
    assert found["search_movie"]["found_for"] == "movie_credits"
    assert "`movie_id`: from `search_movie`" in found["movie_credits"]["description"]


async def test_with_provenance_off_a_search_lists_hits_alone(tmp_path: Path, upstream: Upstream) -> None:
    from tests.support.movies import MOVIES

    config = write_config(tmp_path, upstream, spec=MOVIES, extra="search: on\nprovenance: false\n")
    async with (
        in_process_gateway(config) as (asgi, _),
        http_client(f"{IN_PROCESS}/mcp", transport=asgi) as client,
    ):
        result = await client.call_tool("search_tools", {"query": "who directed this film, the crew of it"})
    assert result.structured_content is not None
    for tool in result.structured_content["tools"]:
        assert "producers" not in tool and "found_for" not in tool
