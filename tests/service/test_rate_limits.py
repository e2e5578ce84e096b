"""Which rate limits a call meets (service/_rate_limits.py), each from the nearest place that sets it, with
one counter per caller and API (and tool), and the refusal that says the limit and the wait."""

from __future__ import annotations

from specbridge import ErrorCode
from specbridge.config import ApiConfig, ClientConfig, RateLimits, parse_rate
from specbridge.document import parse_document
from specbridge.service._rate_limits import limits_for, rate_limited
from specbridge.tools import convert

SPEC = """\
openapi: 3.1.0
info: {title: Orders, version: '1'}
paths:
  /orders/{id}/refund:
    post: {operationId: refundOrder, parameters: [{name: id, in: path, required: true, schema: {type: string}}], responses: {'200': {description: ok}}}
  /orders:
    get: {operationId: listOrders, responses: {'200': {description: ok}}}
"""
REFUND, LIST = convert(parse_document(SPEC, source="o.yaml")).tools
TOP = RateLimits(parse_rate("600/minute"), {"refundOrder": parse_rate("10/hour")})
API = ApiConfig(name="orders", spec="o.yaml", rate_limits=RateLimits(parse_rate("100/minute")))
BOT = ClientConfig(
    id="bot",
    key_sha256="",
    apis=("orders",),
    rate_limits=RateLimits(per_tool={"refundOrder": parse_rate("1/day")}),
)


def test_each_limit_comes_from_the_nearest_place_that_sets_it() -> None:
    applied = limits_for(TOP, API, BOT, REFUND, "bot")
    assert [(one.where, one.rate.text) for one in applied] == [
        ("apis.orders.limits.per_client", "100/minute"),
        ("clients.bot.limits.per_tool.refundOrder", "1/day"),
    ]
    others = limits_for(TOP, API, None, REFUND, "oauth:x")
    assert [one.where for one in others] == ["apis.orders.limits.per_client", "limits.per_tool.refundOrder"]
    assert limits_for(RateLimits(), ApiConfig(name="orders", spec=""), None, LIST, "") == []


def test_counters_are_per_caller_api_and_tool() -> None:
    mine = limits_for(TOP, API, None, REFUND, "bot")
    theirs = limits_for(TOP, API, None, REFUND, "other")
    listing = limits_for(TOP, API, None, LIST, "bot")
    assert mine[0].counter.key == listing[0].counter.key  # one per-client counter for every tool
    assert mine[0].counter.key != theirs[0].counter.key and mine[1].counter.key != theirs[1].counter.key
    assert mine[1].counter.key != mine[0].counter.key
    assert (mine[1].counter.calls, mine[1].counter.window) == (10, 3600.0)


def test_the_refusal_says_which_limit_and_when_to_call_again() -> None:
    applied = limits_for(TOP, API, BOT, REFUND, "bot")
    result = rate_limited(applied, [0.0, 5000.2])
    assert result.code is ErrorCode.RATE_LIMITED and result.is_error
    assert "at most 1 calls of refundOrder per day" in result.text
    assert "100" not in result.text  # the limit that had room is not named
    assert "in 5001 s (retry_after: 5001)" in result.text
