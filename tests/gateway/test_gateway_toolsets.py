"""A toolset: one MCP endpoint of tools picked from three APIs, renamed and re-described, served,
listed and called through the official SDK client; each call keeps its own API's rules (credential,
access, approvals)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError

from specbridge.access import key_sha256
from tests.support.gateway import IN_PROCESS, SPEC, http_client, in_process_gateway
from tests.support.movies import MOVIES
from tests.support.upstream import Upstream, json_response

NOTES = """\
openapi: 3.1.0
info: {title: Notes, version: '1'}
paths:
  /notes:
    post:
      operationId: createNote
      summary: Write a note
      requestBody:
        required: true
        content: {application/json: {schema: {type: object, required: [text], properties: {text: {type: string}}}}}
      responses: {'201': {description: the note, content: {application/json: {schema: {type: object}}}}}
  /notes/{id}:
    delete:
      operationId: deleteNote
      summary: Delete a note
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses: {'204': {description: deleted}}
"""
KEY = "sk-toolset-client-0123456789"
TOOLSET = """\
toolsets:
  assistant:
    title: The assistant's tools
    tools:
      - {api: shop, tool: getProduct, name: product, title: One product, description: A product of the shop by its id.}
      - {api: movies, tool: search_movie}
      - {api: movies, tool: movie_credits, name: credits}
      - {api: notes, tool: createNote, name: note}
      - {api: notes, tool: deleteNote, name: forget_note}
"""


@pytest.fixture(autouse=True)
def upstream_routes(upstream: Upstream) -> None:
    upstream.route("/shop/products/p1", json_response({"id": "p1", "name": "Mug"}))
    upstream.route("/movies/movie/7/credits", json_response({"cast": [{"id": 3, "name": "Ann"}], "crew": []}))
    upstream.route("/notes/notes", json_response({"id": "n1"}, status=201))


def write(directory: Path, upstream: Upstream, *, extra: str = "", clients: str = "") -> Path:
    for name, text in (("shop", SPEC), ("movies", MOVIES), ("notes", NOTES)):
        (directory / f"{name}.yaml").write_text(text, encoding="utf-8")
    apis = "".join(
        f"""\
  {name}:
    spec: ./{name}.yaml
    base_url: {upstream.url}/{name}
    egress: {{allow: ["{upstream.address}"]}}
    auth: {{type: bearer, secret: env:{name.upper()}_TOKEN}}
"""
        for name in ("shop", "movies", "notes")
    )
    notes_tools = "    tools: {deleteNote: {requires_approval: true}}\n"
    path = directory / "specbridge.yaml"
    path.write_text(
        f"apis:\n{apis}{notes_tools}{TOOLSET}{textwrap.indent(extra, '    ')}{clients}", encoding="utf-8"
    )
    return path


@pytest.fixture(autouse=True)
def tokens(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("shop", "movies", "notes"):
        monkeypatch.setenv(f"{name.upper()}_TOKEN", f"token-of-{name}")


async def test_a_toolset_of_three_apis_is_listed_renamed_and_each_call_goes_to_its_own_api(
    tmp_path: Path, upstream: Upstream
) -> None:
    config = write(tmp_path, upstream)
    async with (
        in_process_gateway(config) as (asgi, _),
        http_client(f"{IN_PROCESS}/assistant/mcp", transport=asgi) as client,
    ):
        listing = await client.list_tools()
        product = await client.call_tool("product", {"id": "p1"})
        credits = await client.call_tool("credits", {"movie_id": 7})
        note = await client.call_tool("note", {"text": "hi"})
    tools = {tool.name: tool for tool in listing.tools}
    assert list(tools) == ["product", "search_movie", "credits", "note", "forget_note"]
    assert tools["product"].title == "One product"
    assert tools["product"].description == "A product of the shop by its id."
    assert tools["credits"].description is not None
    assert tools["credits"].description.endswith("`movie_id`: from `search_movie` (`results[].id`).")
    assert "movie_top_rated" not in tools["credits"].description  # not in the toolset: not named
    assert product.is_error is False and product.structured_content == {"id": "p1", "name": "Mug"}
    assert credits.is_error is False and note.is_error is False
    seen = {request.target: request.headers["authorization"] for request in upstream.requests}
    assert seen == {
        "/shop/products/p1": "Bearer token-of-shop",
        "/movies/movie/7/credits": "Bearer token-of-movies",
        "/notes/notes": "Bearer token-of-notes",
    }
    assert {request.headers["x-specbridge-operation"] for request in upstream.requests} == {
        "getProduct",
        "movie_credits",
        "createNote",
    }


async def test_a_toolset_tool_keeps_its_apis_approval_and_a_client_sees_only_its_own_apis_tools(
    tmp_path: Path, upstream: Upstream
) -> None:
    clients = f'clients:\n  bot: {{key_sha256: "{key_sha256(KEY)}", apis: [assistant, movies, notes]}}\n'
    config = write(tmp_path, upstream, clients=clients)
    async with (
        in_process_gateway(config) as (asgi, _),
        http_client(f"{IN_PROCESS}/assistant/mcp", transport=asgi, key=KEY) as client,
    ):
        listing = await client.list_tools()
        with pytest.raises(MCPError) as refused:
            await client.call_tool("product", {"id": "p1"})
        pending = await client.call_tool("forget_note", {"id": "n1"})
    assert [tool.name for tool in listing.tools] == ["search_movie", "credits", "note", "forget_note"]
    assert refused.value.error.code == types.INVALID_PARAMS
    assert (refused.value.error.data or {}).get("code") == "tool-unknown"
    assert pending.is_error is True
    assert "approval-pending" in " ".join(b.text for b in pending.content if isinstance(b, types.TextContent))
    assert (
        upstream.requests == []
    )  # nothing was sent: the shop is not the client's, the delete awaits a person


async def test_a_client_not_let_onto_the_toolset_is_refused_at_its_endpoint(
    tmp_path: Path, upstream: Upstream
) -> None:
    import httpx2

    clients = f'clients:\n  bot: {{key_sha256: "{key_sha256(KEY)}", apis: [movies]}}\n'
    config = write(tmp_path, upstream, clients=clients)
    async with (
        in_process_gateway(config) as (asgi, _),
        httpx2.AsyncClient(transport=asgi, base_url=IN_PROCESS) as http,
    ):
        answer = await http.post(
            "/assistant/mcp",
            headers={"Authorization": f"Bearer {KEY}", "Accept": "application/json, text/event-stream"},
            json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
        )
    assert answer.status_code == 403


async def test_search_mode_over_a_toolset_finds_its_tools_by_their_toolset_names(
    tmp_path: Path, upstream: Upstream
) -> None:
    config = write(tmp_path, upstream)
    config.write_text(config.read_text().replace("    title: The assistant's tools\n", "    search: on\n"))
    async with (
        in_process_gateway(config) as (asgi, _),
        http_client(f"{IN_PROCESS}/assistant/mcp", transport=asgi) as client,
    ):
        listing = await client.list_tools()
        found = await client.call_tool("search_tools", {"query": "cast and crew of a movie", "limit": 2})
        called = await client.call_tool("call_tool", {"name": "credits", "arguments": {"movie_id": 7}})
    assert [tool.name for tool in listing.tools] == ["search_tools", "call_tool"]
    assert found.structured_content is not None
    hits = found.structured_content["tools"]
    assert [hit["name"] for hit in hits] == ["credits", "search_movie"]
    assert hits[0]["producers"] == {"movie_id": ["search_movie"]}  # within the toolset, by its names
    assert called.is_error is False
    assert [request.target for request in upstream.requests] == ["/movies/movie/7/credits"]
