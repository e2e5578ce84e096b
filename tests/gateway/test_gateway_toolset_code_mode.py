"""Code mode over a toolset, through the official MCP client: /<toolset>/mcp lists `search` and
`execute`; a script calls the toolset's tools of two APIs under their toolset names, each call the
picked tool's on its own API (its credential, its approvals, its audit line); a call that needs a
person pauses the script and it goes on once approved; a client not let onto one API has no function
of its tools, nor of a tool that API's rules deny it."""

from __future__ import annotations

import re
from pathlib import Path

import httpx2
import mcp_types as types
import pytest

from specbridge.access import key_sha256
from specbridge.config import load_config
from tests.support.audit import audit_lines
from tests.support.codemode import SPEC, shop_routes
from tests.support.gateway import IN_PROCESS, http_client, in_process_gateway
from tests.support.upstream import Upstream, json_response

NOTES = """\
openapi: 3.1.0
info: {title: Notes, version: '1'}
paths:
  /notes:
    post:
      operationId: createNote
      summary: Write a note about a customer
      requestBody:
        required: true
        content: {application/json: {schema: {type: object, required: [text], properties: {text: {type: string}}}}}
      responses: {'201': {description: the note, content: {application/json: {schema: {type: object}}}}}
"""
ADMIN_KEY = "sba_toolset-code-mode-admin-key"
KEY = "sbk_toolset-code-mode-notes-only"
DESK = "/desk/mcp"
SCRIPT = """\
customer = api.find_customer(email="ada@example.com")[0]
orders = api.listOrders(customerId=customer["id"])["items"]
note = api.note(text=f"{len(orders)} orders")
print("noted", note["id"])
{"customer": customer["id"], "orders": len(orders)}
"""
REFUND = """\
customer = api.find_customer(email="ada@example.com")[0]
orders = api.listOrders(customerId=customer["id"])["items"]
refund = api.refund(orderId=orders[-1]["id"], reason="the mugs arrived broken")
api.note(text="refunded " + refund["refunded"])["id"]
"""
BEFORE = ["/customers", "/customers/c7/orders"]


@pytest.fixture(autouse=True)
def upstream_routes(upstream: Upstream, monkeypatch: pytest.MonkeyPatch) -> None:
    shop_routes(upstream)
    upstream.route("/notes/notes", json_response({"id": "n1"}, status=201))
    monkeypatch.setenv("SHOP_TOKEN", "token-of-shop")
    monkeypatch.setenv("NOTES_TOKEN", "token-of-notes")


def desk_config(directory: Path, upstream: Upstream, *, clients: str = "") -> Path:
    """The code shop and a notes API, neither in code mode, and the toolset `desk` of both in code mode
    (the shop's refund needs a person)."""
    (directory / "shop.yaml").write_text(SPEC, encoding="utf-8")
    (directory / "notes.yaml").write_text(NOTES, encoding="utf-8")
    path = directory / "specbridge.yaml"
    path.write_text(
        f"""\
store: 'sqlite:///{directory / "state.db"}'
audit: {{path: {directory / "audit.jsonl"}}}
admins:
  ops: {{key_sha256: {key_sha256(ADMIN_KEY)}}}
approvals: {{wait: 0, send: on_retry}}
apis:
  shop:
    spec: ./shop.yaml
    base_url: {upstream.url}
    egress: {{allow: ["{upstream.address}"]}}
    auth: {{type: bearer, secret: env:SHOP_TOKEN}}
    tools:
      refundOrder: {{requires_approval: true}}
  notes:
    spec: ./notes.yaml
    base_url: {upstream.url}/notes
    egress: {{allow: ["{upstream.address}"]}}
    auth: {{type: bearer, secret: env:NOTES_TOKEN}}
toolsets:
  desk:
    title: The support desk
    code_mode: on
    tools:
      - {{api: shop, tool: findCustomers, name: find_customer}}
      - {{api: shop, tool: listOrders}}
      - {{api: shop, tool: refundOrder, name: refund}}
      - {{api: notes, tool: createNote, name: note}}
{clients}""",
        encoding="utf-8",
    )
    return path


def text(result: types.CallToolResult) -> str:
    return " ".join(block.text for block in result.content if isinstance(block, types.TextContent))


async def test_a_toolset_in_code_mode_lists_search_and_execute_and_finds_its_tools_by_their_names(
    tmp_path: Path, upstream: Upstream
) -> None:
    config = desk_config(tmp_path, upstream)
    async with (
        in_process_gateway(config) as (asgi, _),
        http_client(f"{IN_PROCESS}{DESK}", transport=asgi) as client,
    ):
        listing = await client.list_tools()
        found = await client.call_tool("search", {"query": "write a note", "limit": 1})
    assert [tool.name for tool in listing.tools] == ["search", "execute"]
    assert "The support desk has 4 operations" in (listing.tools[0].description or "")
    assert found.is_error is False, text(found)
    assert "def note(*, text: str, " in text(found)  # its toolset name, its API's arguments


async def test_a_script_over_a_toolset_returns_only_its_result_and_each_call_is_its_own_apis(
    tmp_path: Path, upstream: Upstream
) -> None:
    config = desk_config(tmp_path, upstream)
    async with (
        in_process_gateway(config) as (asgi, _),
        http_client(f"{IN_PROCESS}{DESK}", transport=asgi) as client,
    ):
        result = await client.call_tool("execute", {"code": SCRIPT})
    assert result.is_error is False, text(result)
    assert result.structured_content == {"result": {"customer": "c7", "orders": 40}, "printed": "noted n1\n"}
    assert [(request.path, request.headers["authorization"]) for request in upstream.requests] == [
        ("/customers", "Bearer token-of-shop"),
        ("/customers/c7/orders", "Bearer token-of-shop"),
        ("/notes/notes", "Bearer token-of-notes"),
    ]
    calls = [line for line in audit_lines(tmp_path / "audit.jsonl") if line["event"] == "tool call"]
    assert [(line["api"], line["tool"], line["outcome"]) for line in calls] == [
        ("shop", "findCustomers", "ok"),
        ("shop", "listOrders", "ok"),
        ("notes", "createNote", "ok"),
    ]
    assert len({line["script"] for line in calls}) == 1 and calls[0]["script"]


async def test_a_toolset_script_pauses_at_its_apis_approval_and_goes_on_once_approved_without_repeats(
    tmp_path: Path, upstream: Upstream
) -> None:
    config = desk_config(tmp_path, upstream)
    async with in_process_gateway(config) as (asgi, _):
        async with http_client(f"{IN_PROCESS}{DESK}", transport=asgi) as client:
            paused = await client.call_tool("execute", {"code": REFUND})
        said = text(paused)
        assert paused.is_error is True and said.startswith("[approval-pending]"), said
        assert "its call of refund awaits a person's approval" in said
        approval = re.search(r"\(approval ([A-Za-z0-9_-]{20,})\)", said)
        script = re.search(r"resume '([A-Za-z0-9_-]{22})'", said)
        assert approval is not None and script is not None, said
        assert [request.path for request in upstream.requests] == BEFORE
        async with httpx2.AsyncClient(transport=asgi, base_url=IN_PROCESS) as admin:
            approved = await admin.post(
                f"/admin/approvals/{approval.group(1)}/approve",
                headers={"Authorization": f"Bearer {ADMIN_KEY}"},
            )
        assert approved.status_code == 200
        async with http_client(f"{IN_PROCESS}{DESK}", transport=asgi) as client:  # a new session goes on
            resumed = await client.call_tool("execute", {"resume": script.group(1)})
            repeated = await client.call_tool("execute", {"resume": script.group(1)})
    assert resumed.is_error is False, text(resumed)
    assert resumed.structured_content == {"result": "n1"}
    assert text(repeated) == text(resumed)  # how it ended; nothing made again
    assert [request.path for request in upstream.requests] == [*BEFORE, "/orders/o40/refund", "/notes/notes"]
    calls = [line for line in audit_lines(tmp_path / "audit.jsonl") if line["event"] == "tool call"]
    assert ("shop", "refundOrder", "ok") in [(line["api"], line["tool"], line["outcome"]) for line in calls]


async def test_a_client_not_let_onto_one_api_has_no_function_of_its_tools_in_a_toolset_script(
    tmp_path: Path, upstream: Upstream
) -> None:
    clients = f'clients:\n  noter: {{key_sha256: "{key_sha256(KEY)}", apis: [desk, notes]}}\n'
    config = desk_config(tmp_path, upstream, clients=clients)
    async with (
        in_process_gateway(config) as (asgi, _),
        http_client(f"{IN_PROCESS}{DESK}", transport=asgi, key=KEY) as client,
    ):
        listing = await client.list_tools()
        found = await client.call_tool("search", {"query": "customers by email"})
        refused = await client.call_tool("execute", {"code": 'api.find_customer(email="ada@example.com")'})
        unknown = await client.call_tool("execute", {"code": 'api.find_customerz(email="ada@example.com")'})
        noted = await client.call_tool("execute", {"code": 'api.note(text="hi")["id"]'})
    assert "The support desk has 1 operations" in (listing.tools[0].description or "")
    assert "def find_customer" not in text(found) and "def note(" in text(found)
    assert refused.is_error is True and text(refused).startswith("[tool-unknown]"), text(refused)
    assert text(refused) == text(unknown).replace("find_customerz", "find_customer")  # alike: no hint
    assert noted.is_error is False and noted.structured_content == {"result": "n1"}
    assert [request.path for request in upstream.requests] == ["/notes/notes"]


async def test_an_apis_tool_rules_for_a_client_hold_inside_a_toolset_script(
    tmp_path: Path, upstream: Upstream
) -> None:
    clients = (
        f'clients:\n  reader: {{key_sha256: "{key_sha256(KEY)}", apis: [desk, shop, notes], '
        "tools: {shop: {deny: [refundOrder]}}}\n"
    )
    config = desk_config(tmp_path, upstream, clients=clients)
    script = 'api.find_customer(email="ada@example.com")[0]["id"]'
    async with (
        in_process_gateway(config) as (asgi, _),
        http_client(f"{IN_PROCESS}{DESK}", transport=asgi, key=KEY) as client,
    ):
        listing = await client.list_tools()
        found = await client.call_tool("execute", {"code": script})
        denied = await client.call_tool("execute", {"code": 'api.refund(orderId="o40", reason="mine")'})
    assert "The support desk has 3 operations" in (listing.tools[0].description or "")
    assert found.is_error is False and found.structured_content == {"result": "c7"}
    assert denied.is_error is True and text(denied).startswith("[tool-unknown]"), text(denied)
    assert "module 'api' has no attribute 'refund'" in text(denied)
    assert [request.path for request in upstream.requests] == ["/customers"]


async def test_a_reload_that_turns_a_toolsets_code_mode_on_serves_search_and_execute(
    tmp_path: Path, upstream: Upstream
) -> None:
    config = desk_config(tmp_path, upstream)
    config.write_text(config.read_text(encoding="utf-8").replace("code_mode: on", "code_mode: off"))
    async with in_process_gateway(config) as (asgi, gateway):
        async with http_client(f"{IN_PROCESS}{DESK}", transport=asgi) as client:
            before = await client.list_tools()
        config.write_text(config.read_text(encoding="utf-8").replace("code_mode: off", "code_mode: on"))
        await gateway.reload(load_config(config))
        async with http_client(f"{IN_PROCESS}{DESK}", transport=asgi) as client:
            after = await client.list_tools()
            noted = await client.call_tool("execute", {"code": 'api.note(text="hi")["id"]'})
    assert [tool.name for tool in before.tools] == ["find_customer", "listOrders", "refund", "note"]
    assert [tool.name for tool in after.tools] == ["search", "execute"]
    assert noted.is_error is False and noted.structured_content == {"result": "n1"}
