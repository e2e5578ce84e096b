"""Code mode as a client sees it, over Streamable HTTP with the official SDK client, the gateway in
process (ASGI), against a real upstream: two tools, signatures found by search, a script whose calls
are each a call of the call service."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.audit import audit_lines
from tests.support.codemode import code_config, shop_routes
from tests.support.gateway import IN_PROCESS, http_client, in_process_gateway, text
from tests.support.upstream import Upstream

ERAS = ["legacy", "2026-07-28"]

THREE_CALLS = """\
customer = api.findCustomers(email="ada@example.com")[0]
orders = api.listOrders(customerId=customer["id"])["items"]
big = [order for order in orders if order["total"] >= 390]
detail = api.getOrder(orderId=big[0]["id"])
print("checked", len(orders), "orders")
{"order": detail["id"], "lines": len(detail["lines"])}
"""


@pytest.fixture(autouse=True)
def upstream_routes(upstream: Upstream) -> None:
    shop_routes(upstream)


@pytest.mark.parametrize("era", ERAS)
async def test_in_code_mode_the_list_is_search_and_execute(
    tmp_path: Path, upstream: Upstream, era: str
) -> None:
    config = code_config(tmp_path, upstream)
    async with (
        in_process_gateway(config) as (asgi, _),
        http_client(f"{IN_PROCESS}/mcp", mode=era, transport=asgi) as client,
    ):
        listing = await client.list_tools()
        found = await client.call_tool("search", {"query": "orders of a customer", "limit": 2})
    assert [tool.name for tool in listing.tools] == ["search", "execute"]
    assert found.is_error is False
    assert "def listOrders(*, customerId: str) -> dict:" in text(found)


@pytest.mark.parametrize("era", ERAS)
async def test_a_script_of_three_dependent_calls_returns_only_its_result_and_each_call_is_audited(
    tmp_path: Path, upstream: Upstream, era: str
) -> None:
    audit_file = tmp_path / "audit.jsonl"
    config = code_config(tmp_path, upstream, top=f"audit: {{path: {audit_file}}}\n")
    async with (
        in_process_gateway(config) as (asgi, _),
        http_client(f"{IN_PROCESS}/mcp", mode=era, transport=asgi) as client,
    ):
        result = await client.call_tool("execute", {"code": THREE_CALLS})
    assert result.is_error is False, text(result)
    assert result.structured_content == {
        "result": {"order": "o39", "lines": 1},
        "printed": "checked 40 orders\n",
    }
    assert [request.path for request in upstream.requests] == [
        "/customers",
        "/customers/c7/orders",
        "/orders/o39",
    ]
    calls = [line for line in audit_lines(audit_file) if line["event"] == "tool call"]
    assert [line["tool"] for line in calls] == ["findCustomers", "listOrders", "getOrder"]
    assert len({line["script"] for line in calls}) == 1 and calls[0]["script"]
    assert all(line["outcome"] == "ok" for line in calls)


async def test_a_rate_limit_inside_a_script_answers_as_any_calls_does(
    tmp_path: Path, upstream: Upstream
) -> None:
    audit_file = tmp_path / "audit.jsonl"
    top = f"limits: {{per_tool: {{getOrder: 2/minute}}}}\naudit: {{path: {audit_file}}}\n"
    config = code_config(tmp_path, upstream, top=top)
    script = 'for n in range(1, 4):\n    print(api.getOrder(orderId=f"o{n}")["id"])'
    async with (
        in_process_gateway(config) as (asgi, _),
        http_client(f"{IN_PROCESS}/mcp", transport=asgi) as client,
    ):
        limited = await client.call_tool("execute", {"code": script})
        direct = await client.call_tool("getOrder", {"orderId": "o3"})
        caught = await client.call_tool(
            "execute",
            {
                "code": 'try:\n    api.getOrder(orderId="o1")\nexcept RuntimeError as error:\n    found = str(error)\nfound'
            },
        )
    said = "[rate-limited] too many calls: this client may make at most 2 calls of getOrder per minute; nothing was sent."
    assert limited.is_error is True and text(limited).startswith(said), text(limited)
    assert "(line 2:" in text(limited) and "o1\no2\n" in text(limited)  # where it stopped, what it printed
    assert direct.is_error is True and text(direct).startswith(said)
    assert caught.is_error is False and str(caught.structured_content["result"]).startswith(said)  # type: ignore[index]
    assert [request.path for request in upstream.requests] == ["/orders/o1", "/orders/o2"]
    outcomes = [
        (line["outcome"], "script" in line)
        for line in audit_lines(audit_file)
        if line["event"] == "tool call"
    ]
    assert outcomes == [
        ("ok", True),
        ("ok", True),
        ("rate-limited", True),
        ("rate-limited", False),
        ("rate-limited", True),
    ]
