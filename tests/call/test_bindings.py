"""`call/_bindings.py`: fixed values the model never sees: gone from the input schema, filled after the
check, and a call that supplies one anyway (under any spelling or through an exploded object) refused."""

from __future__ import annotations

import dataclasses
import json

import pytest

from specbridge._errors import ErrorCode
from specbridge.call import Caller
from specbridge.call._check import format_path
from specbridge.config import ToolConfig
from tests.call._caller import MakeCaller
from tests.call._caller import call as _call
from tests.call._documents import SEARCH
from tests.support.upstream import Upstream

# -- bindings ---------------------------------------------------------------------------------------


def _bound_caller(make_caller: MakeCaller) -> Caller:
    return make_caller(
        tools={"createOrder": ToolConfig(bindings={"path.shopId": "shop-1", "body.address/city": "Berlin"})}
    )


async def test_bound_arguments_disappear_from_the_input_schema(make_caller: MakeCaller) -> None:
    caller = _bound_caller(make_caller)
    tool = caller.toolset.get("createOrder")
    assert tool is not None
    schema = caller.input_schema(tool, {"body.currency": "EUR"})
    assert "shopId" not in schema["properties"] and "shopId" not in schema["required"]
    assert "currency" not in schema["properties"]
    assert "city" not in schema["properties"]["address"]["properties"]
    assert "shopId" in tool.input_schema["properties"]  # the tool itself is untouched


async def test_a_bound_nested_field_leaves_an_equal_object_elsewhere_whole(make_caller: MakeCaller) -> None:
    """A kept conversion makes equal subtrees one object (tools/_compact.py): removing the bound
    `address.city` must not remove `billing.city` with it."""
    caller = _bound_caller(make_caller)
    tool = caller.toolset.get("createOrder")
    assert tool is not None
    schema = dict(tool.input_schema)
    schema["properties"] = {**schema["properties"], "billing": schema["properties"]["address"]}
    schema = caller.input_schema(dataclasses.replace(tool, input_schema=schema))
    assert "city" not in schema["properties"]["address"]["properties"]
    assert "city" in schema["properties"]["billing"]["properties"]


async def test_bindings_fill_their_arguments_after_the_check(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    caller = _bound_caller(make_caller)
    result = await _call(
        caller,
        "createOrder",
        {"items": [], "address": {"street": "Main"}},
        client_bindings={"body.currency": "EUR"},
    )
    assert not result.is_error, result.text  # type: ignore[attr-defined]
    request = upstream.requests[-1]
    assert request.path == "/v1/shops/shop-1/orders"
    assert json.loads(request.body) == {
        "items": [],
        "address": {"street": "Main", "city": "Berlin"},
        "currency": "EUR",
    }


@pytest.mark.parametrize(
    "arguments",
    [{"shopId": "other", "items": []}, {"items": [], "address": {"city": "Paris"}}],
)
async def test_a_call_that_supplies_a_bound_argument_is_refused(
    make_caller: MakeCaller, upstream: Upstream, arguments: dict[str, object]
) -> None:
    result = await _call(_bound_caller(make_caller), "createOrder", arguments)
    assert result.is_error and result.code == ErrorCode.ARGUMENT_BOUND  # type: ignore[attr-defined]
    assert "Paris" not in result.text and "other" not in result.text  # type: ignore[attr-defined]
    assert upstream.requests == []


async def test_a_header_binding_for_an_undeclared_header_is_sent(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    await _call(make_caller(), "ping", {}, client_bindings={"header.X-Tenant": "t1", "query.region": "eu"})
    request = upstream.requests[-1]
    assert request.headers["x-tenant"] == "t1" and request.query == [("region", "eu")]


async def test_an_exploded_query_object_cannot_override_a_bound_query_parameter(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    caller = make_caller(document=SEARCH, tools={"search": ToolConfig(bindings={"query.tenant": "mine"})})
    result = await _call(caller, "search", {"filter": {"tenant": "victim"}})
    assert result.is_error and result.code == ErrorCode.ARGUMENT_BOUND, result.text
    assert "victim" not in result.text
    assert upstream.requests == []


async def test_an_exploded_query_object_cannot_override_an_undeclared_query_binding(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    caller = make_caller(document=SEARCH)
    result = await _call(
        caller, "search", {"filter": {"customer": "victim"}}, client_bindings={"query.customer": "c-1"}
    )
    assert result.is_error and result.code == ErrorCode.ARGUMENT_BOUND, result.text
    assert upstream.requests == []


async def test_an_exploded_cookie_object_cannot_override_a_bound_cookie(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    caller = make_caller(document=SEARCH)
    result = await _call(
        caller, "search", {"prefs": {"account": "victim"}}, client_bindings={"cookie.account": "acct-1"}
    )
    assert result.is_error and result.code == ErrorCode.ARGUMENT_BOUND, result.text
    assert upstream.requests == []


async def test_an_exploded_form_field_cannot_override_a_bound_body_field(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    caller = make_caller(document=SEARCH)
    result = await _call(
        caller,
        "sendForm",
        {"meta": {"customer_id": "victim"}},
        client_bindings={"body.customer_id": "c-1"},
    )
    assert result.is_error and result.code == ErrorCode.ARGUMENT_BOUND, result.text
    assert upstream.requests == []


# -- a bound nested body field under another spelling -------------------------------------------------

ORDER = {"shopId": "s-1", "items": [{"sku": "a", "qty": 1}]}


@pytest.mark.parametrize("spelling", ["City", "CITY", "city ", " city", "cIty\t"])
async def test_a_case_or_space_variant_of_a_bound_nested_body_field_is_refused(
    make_caller: MakeCaller, upstream: Upstream, spelling: str
) -> None:
    result = await _call(
        make_caller(),
        "createOrder",
        {**ORDER, "address": {spelling: "Elsewhere", "street": "Main St"}},
        client_bindings={"body.address/city": "Lyon"},
    )
    assert result.is_error and result.code == ErrorCode.ARGUMENT_BOUND, result.text
    assert format_path(("address", spelling)) in result.text  # the path as sent, never the value
    assert "Elsewhere" not in result.text
    assert upstream.requests == []


async def test_other_fields_beside_a_bound_nested_body_field_are_still_sent(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    result = await _call(
        make_caller(),
        "createOrder",
        {**ORDER, "address": {"street": "Main St"}},
        client_bindings={"body.address/city": "Lyon"},
    )
    assert not result.is_error, result.text
    assert json.loads(upstream.requests[-1].body)["address"] == {"street": "Main St", "city": "Lyon"}
