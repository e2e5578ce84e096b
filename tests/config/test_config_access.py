"""The access rules in the config (config/_access.py, _rules.py): `clients.<id>.tools`, `apis.<name>.oauth.
scopes`, `limits.per_client`/`per_tool` at three places and `audit`, read with key-path errors; every tool
name they give is checked against the APIs' tools like `tools.<name>`, with a did-you-mean."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from specbridge import ConfigError, ErrorCode
from specbridge.config import Config, Rate, ToolAccess, check_access_names, config_from_data, parse_rate
from specbridge.document import parse_document
from specbridge.tools import ToolSet, convert

ORDERS = """\
openapi: 3.1.0
info: {title: Orders, version: '1'}
paths:
  /orders/{id}:
    parameters: [{name: id, in: path, required: true, schema: {type: string}}]
    get: {operationId: getOrder, responses: {'200': {description: ok}}}
    delete: {operationId: deleteOrder, responses: {'204': {description: gone}}}
  /orders/{id}/refund:
    post: {operationId: refundOrder, parameters: [{name: id, in: path, required: true, schema: {type: string}}], responses: {'200': {description: ok}}}
"""
BILLING = """\
openapi: 3.1.0
info: {title: Billing, version: '1'}
paths:
  /invoices:
    get: {operationId: listInvoices, responses: {'200': {description: ok}}}
"""
OAUTH = {"issuer": "https://auth.example.com", "jwks_uri": "https://auth.example.com/jwks"}


def config(tmp_path: Path, **top: Any) -> Config:
    apis = top.pop("apis", {})
    data = {
        "apis": {
            "orders": {"spec": "orders.yaml", **apis.get("orders", {})},
            "billing": {"spec": "billing.yaml", **apis.get("billing", {})},
        },
        **top,
    }
    return config_from_data(data, source="specbridge.yaml", base_dir=tmp_path)


def toolsets() -> dict[str, ToolSet]:
    return {
        "orders": convert(parse_document(ORDERS, source="orders.yaml")),
        "billing": convert(parse_document(BILLING, source="billing.yaml")),
    }


def refused(made: Config) -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        check_access_names(made, toolsets())
    assert caught.value.code is ErrorCode.CONFIG_INVALID
    return caught.value


def client(**rules: Any) -> dict[str, Any]:
    return {"bot": {"key_sha256": "a" * 64, "apis": ["orders", "billing"], **rules}}


@pytest.mark.parametrize(
    ("text", "calls", "window"),
    [
        ("600/minute", 600, 60),
        ("10/hour", 10, 3600),
        (" 5 / second ", 5, 1),
        ("1000/day", 1000, 86400),
        ("100/15m", 100, 900),
        ("3/1.5s", 3, 1.5),
        ("7/2h", 7, 7200),
    ],
)
def test_a_rate_is_calls_over_a_period_or_a_duration(text: str, calls: int, window: float) -> None:
    rate = parse_rate(text)
    assert (rate.calls, rate.window) == (calls, window)


@pytest.mark.parametrize("text", ["0/minute", "10 per minute", "10/fortnight", "10/0s", "-1/hour", "10/"])
def test_anything_else_is_not_a_rate(tmp_path: Path, text: str) -> None:
    with pytest.raises(ConfigError) as caught:
        config(tmp_path, limits={"per_client": text})
    assert caught.value.key == "limits.per_client"


def test_limits_are_read_at_the_top_level_per_api_and_per_client(tmp_path: Path) -> None:
    made = config(
        tmp_path,
        limits={"per_client": "600/minute", "per_tool": {"refundOrder": "10/hour"}, "max_items": 50},
        apis={"orders": {"limits": {"per_tool": {"deleteOrder": "1/day"}}}},
        clients=client(limits={"per_client": "6000/minute"}),
    )
    assert made.rate_limits.per_client == Rate(600, 60.0, "600/minute")
    assert made.rate_limits.per_tool == {"refundOrder": Rate(10, 3600.0, "10/hour")}
    assert made.limits.max_items == 50  # one call's limits share the key
    assert made.apis["orders"].rate_limits.per_tool == {"deleteOrder": Rate(1, 86400.0, "1/day")}
    assert not made.apis["billing"].rate_limits
    assert made.clients["bot"].rate_limits.per_client == Rate(6000, 60.0, "6000/minute")
    check_access_names(made, toolsets())


def test_a_bad_rate_in_a_client_is_named_by_its_key(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        config(tmp_path, clients=client(limits={"per_tool": {"refundOrder": "lots"}}))
    assert caught.value.key == "clients.bot.limits.per_tool.refundOrder"


def test_a_clients_tool_rules_are_read_per_api(tmp_path: Path) -> None:
    made = config(
        tmp_path, clients=client(tools={"orders": {"allow": ["get*", "refundOrder"], "deny": ["x*"]}})
    )
    assert made.clients["bot"].tools == {"orders": ToolAccess(allow=("get*", "refundOrder"), deny=("x*",))}
    assert config(tmp_path, clients=client(tools={"orders": {"deny": ["deleteOrder"]}})).clients[
        "bot"
    ].tools == {"orders": ToolAccess(allow=None, deny=("deleteOrder",))}


def test_tool_rules_for_an_api_the_client_does_not_use_are_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        config(
            tmp_path,
            clients={
                "bot": {"key_sha256": "a" * 64, "apis": ["billing"], "tools": {"orders": {"allow": []}}}
            },
        )
    assert caught.value.key == "clients.bot.tools.orders"
    assert "billing" in str(caught.value)


def test_oauth_scopes_give_tools(tmp_path: Path) -> None:
    scopes = {"orders:read": ["get*"], "orders:refund": ["refundOrder"]}
    made = config(
        tmp_path, apis={"orders": {"oauth": {**OAUTH, "scopes_supported": ["mcp"], "scopes": scopes}}}
    )
    oauth = made.apis["orders"].oauth
    assert oauth is not None
    assert oauth.scopes == {"orders:read": ("get*",), "orders:refund": ("refundOrder",)}
    assert oauth.advertised_scopes == ("mcp", "orders:read", "orders:refund")


def test_the_audit_path_is_taken_from_the_configs_folder_or_is_stderr(tmp_path: Path) -> None:
    assert config(tmp_path, audit={"path": "logs/audit.jsonl"}).audit.path == str(
        tmp_path / "logs" / "audit.jsonl"
    )
    assert config(tmp_path, audit={"path": "stderr"}).audit.path == "stderr"
    assert config(tmp_path).audit.path is None
    with pytest.raises(ConfigError) as caught:
        config(tmp_path, audit={"file": "x"})
    assert "audit" in caught.value.key


@pytest.mark.parametrize(
    ("top", "key", "hint"),
    [
        (
            {"clients": client(tools={"orders": {"allow": ["getOrdr"]}})},
            "clients.bot.tools.orders.allow[0]",
            "did you mean `getOrder`?",
        ),
        (
            {"clients": client(tools={"orders": {"deny": ["list*"]}})},
            "clients.bot.tools.orders.deny[0]",
            "matches no tool",
        ),
        (
            {"apis": {"orders": {"oauth": {**OAUTH, "scopes": {"refund": ["refundOrders"]}}}}},
            "apis.orders.oauth.scopes.refund[0]",
            "did you mean `refundOrder`?",
        ),
        (
            {"apis": {"orders": {"limits": {"per_tool": {"listInvoices": "1/hour"}}}}},
            "apis.orders.limits.per_tool.listInvoices",
            "names no tool of this API",
        ),
        (
            {"limits": {"per_tool": {"refund": "1/hour"}}},
            "limits.per_tool.refund",
            "names no tool of any API",
        ),
        (
            {"clients": client(limits={"per_tool": {"listInvoice": "1/hour"}})},
            "clients.bot.limits.per_tool.listInvoice",
            "did you mean `listInvoices`?",
        ),
    ],
)
def test_a_tool_name_no_tool_has_is_an_error_with_the_closest_name(
    tmp_path: Path, top: dict[str, Any], key: str, hint: str
) -> None:
    error = refused(config(tmp_path, **top))
    assert error.key == key
    assert hint in str(error)


def test_names_of_any_api_and_patterns_that_match_pass(tmp_path: Path) -> None:
    made = config(
        tmp_path,
        limits={"per_tool": {"listInvoices": "1/hour", "refundOrder": "1/hour"}},
        clients=client(
            tools={"orders": {"allow": ["*Order"], "deny": ["deleteOrder"]}, "billing": {"allow": []}}
        ),
    )
    check_access_names(made, toolsets())
    check_access_names(made, {})  # no API served: nothing to check against
