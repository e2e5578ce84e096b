"""Which tools one caller may use (service/_tool_access.py): the client's allow then deny, by any key a
tool has or a glob over them, and a token's scopes on an API that gives tools by scope; both must agree."""

from __future__ import annotations

from dataclasses import replace

from specbridge.config import ApiConfig, ClientConfig, OAuthConfig, ToolAccess
from specbridge.document import parse_document
from specbridge.service import tool_rules
from specbridge.tools import Tool, convert

SPEC = """\
openapi: 3.1.0
info: {title: Orders, version: '1'}
paths:
  /orders/{id}:
    parameters: [{name: id, in: path, required: true, schema: {type: string}}]
    get: {operationId: getOrder, responses: {'200': {description: ok}}}
    delete: {operationId: deleteOrder, responses: {'204': {description: gone}}}
  /orders/{id}/refund:
    post: {operationId: "refund order", parameters: [{name: id, in: path, required: true, schema: {type: string}}], responses: {'200': {description: ok}}}
"""
TOOLS = {tool.operation.operation_id: tool for tool in convert(parse_document(SPEC, source="o.yaml")).tools}
API = ApiConfig(name="orders", spec="o.yaml")


def allowed(api: ApiConfig, client: ClientConfig | None, scopes: frozenset[str] | None = None) -> list[str]:
    rules = tool_rules(api, client, scopes)
    return [str(tool.operation.operation_id) for tool in TOOLS.values() if rules.allows(tool)]


def client(**tools: ToolAccess) -> ClientConfig:
    return ClientConfig(id="bot", key_sha256="", apis=("orders",), tools=tools)


def test_without_rules_every_tool_is_the_callers() -> None:
    assert allowed(API, None) == allowed(API, client()) == ["getOrder", "deleteOrder", "refund order"]
    assert tool_rules(API, client(), None).everything


def test_allow_then_deny_by_name_operation_id_or_glob() -> None:
    refund: Tool = TOOLS["refund order"]
    assert refund.name != "refund order"  # its MCP name differs from its operationId
    assert allowed(API, client(orders=ToolAccess(allow=("get*", "refund order")))) == [
        "getOrder",
        "refund order",
    ]
    assert allowed(API, client(orders=ToolAccess(deny=("*Order",)))) == ["refund order"]
    assert allowed(API, client(orders=ToolAccess(allow=("*",), deny=(refund.name,)))) == [
        "getOrder",
        "deleteOrder",
    ]
    assert allowed(API, client(orders=ToolAccess(allow=()))) == []
    assert allowed(API, client(other=ToolAccess(allow=()))) == ["getOrder", "deleteOrder", "refund order"]


def test_a_denial_names_the_rule_that_made_it() -> None:
    rules = tool_rules(API, client(orders=ToolAccess(allow=("*Order",), deny=("delete*",))), None)
    assert rules.denial(TOOLS["getOrder"]) is None
    assert rules.denial(TOOLS["deleteOrder"]) == "clients.bot.tools.orders.deny"
    assert rules.denial(TOOLS["refund order"]) == "clients.bot.tools.orders.allow"


def test_a_tokens_scopes_give_their_tools_and_the_clients_rules_still_apply() -> None:
    oauth = OAuthConfig(issuer="https://a.example", scopes={"read": ("get*",), "admin": ("*",)})
    api = replace(API, oauth=oauth)
    assert allowed(api, None, frozenset({"read"})) == ["getOrder"]
    assert allowed(api, None, frozenset({"read", "admin"})) == ["getOrder", "deleteOrder", "refund order"]
    assert allowed(api, None, frozenset()) == []
    assert allowed(api, None, None) == ["getOrder", "deleteOrder", "refund order"]  # a key: no token
    narrowed = client(orders=ToolAccess(deny=("deleteOrder",)))
    assert allowed(api, narrowed, frozenset({"admin"})) == ["getOrder", "refund order"]
    assert (
        tool_rules(api, None, frozenset({"read"})).denial(TOOLS["deleteOrder"]) == "apis.orders.oauth.scopes"
    )


def test_rules_are_equal_when_what_they_allow_is_so_a_listing_is_shared() -> None:
    oauth = OAuthConfig(issuer="https://a.example", scopes={"read": ("get*",)})
    api = replace(API, oauth=oauth)
    assert tool_rules(api, None, frozenset({"read", "profile"})) == tool_rules(api, None, frozenset({"read"}))
    assert tool_rules(api, None, frozenset({"read"})) != tool_rules(api, None, frozenset())
