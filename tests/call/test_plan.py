"""`call/_plan.py`: what the config decides for a tool's calls, worked out once per (tool, client
bindings) and kept in a bounded cache."""

from __future__ import annotations

import pytest

from specbridge.call import Caller
from specbridge.call._plan import Plans
from specbridge.config import ApiConfig, ToolConfig
from tests.call._caller import api_config, toolset_for


def _caller(**tools: ToolConfig) -> Caller:
    return Caller(api_config("https://api.example.com/v1", tools=tools), toolset_for())


def test_the_same_tool_and_bindings_get_the_same_plan() -> None:
    caller = _caller()
    tool = caller.toolset.get("createOrder")
    assert tool is not None
    assert caller.plan(tool, {"path.shopId": "s1"}) is caller.plan(tool, {"path.shopId": "s1"})


def test_clients_binding_the_same_argument_to_other_values_get_their_own_plans() -> None:
    caller = _caller()
    tool = caller.toolset.get("createOrder")
    assert tool is not None
    one, other = caller.plan(tool, {"path.shopId": "s1"}), caller.plan(tool, {"path.shopId": "s2"})
    assert one is not other
    assert one.bindings.top == (("shopId", "s1"),)
    assert other.bindings.top == (("shopId", "s2"),)
    assert one.checker is other.checker  # the same bound names: one compiled check for both


def test_a_plan_carries_the_tool_settings_timeout_and_approval() -> None:
    caller = _caller(
        createOrder=ToolConfig(timeout=3.0, requires_approval=True, bindings={"path.shopId": "s"})
    )
    tool = caller.toolset.get("createOrder")
    ping = caller.toolset.get("ping")
    assert tool is not None and ping is not None
    plan = caller.plan(tool)
    assert (plan.timeout, plan.requires_approval, plan.bindings.top) == (3.0, True, (("shopId", "s"),))
    assert "shopId" not in plan.input_schema()["properties"]
    assert (caller.plan(ping).timeout, caller.plan(ping).requires_approval) == (10.0, False)


def test_a_plan_shows_the_bound_values_by_their_config_names_the_clients_over_the_tools() -> None:
    caller = _caller(createOrder=ToolConfig(bindings={"path.shopId": "s", "header.X-Tenant": "t"}))
    tool = caller.toolset.get("createOrder")
    assert tool is not None
    plan = caller.plan(tool, {"header.X-Tenant": "mine", "query.region": "eu"})
    assert dict(plan.binding_values) == {"path.shopId": "s", "header.X-Tenant": "mine", "query.region": "eu"}
    with pytest.raises(TypeError):
        plan.binding_values["path.shopId"] = "other"  # type: ignore[index]  # plans are shared


def test_the_tool_settings_are_read_once_per_plan(monkeypatch: pytest.MonkeyPatch) -> None:
    reads: list[str] = []
    original = ApiConfig.tool_settings

    def counting(self: ApiConfig, tool: object) -> object:
        reads.append(getattr(tool, "name", ""))
        return original(self, tool)  # type: ignore[arg-type]

    monkeypatch.setattr(ApiConfig, "tool_settings", counting)
    caller = _caller()
    tool = caller.toolset.get("createOrder")
    assert tool is not None
    for _ in range(3):
        caller.prepare(tool, {"shopId": "s", "items": []})
        caller.timeout(tool)
    assert reads == ["createOrder"]


def test_plans_are_kept_for_a_bounded_number_of_tools_and_bindings() -> None:
    caller = _caller()
    plans = Plans(caller.api, size=2)
    for tool in caller.toolset.tools:
        plans.plan(tool, None)
    assert len(plans) == 2


def test_a_listing_does_not_push_plans_in_use_out_of_the_cache() -> None:
    caller = _caller()
    for tool in caller.toolset.tools:
        caller.input_schema(tool, {"header.X-Tenant": "t"})
    assert len(caller._plans) == 0


def test_plans_hold_no_compiled_check_past_the_smaller_bound_of_checks() -> None:
    caller = _caller()
    plans = Plans(caller.api, checkers=1)
    made = [plans.plan(tool, None) for tool in caller.toolset.tools[:3]]
    for plan in made:
        assert plan.checker is plans.checkers.get((plan.tool.name, plan.bindings.key))
    assert len(plans) == 3 and len(plans.checkers) == 1
