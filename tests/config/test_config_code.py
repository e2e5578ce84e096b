"""`code_mode`: off by default, `on` per API or toolset, their own limits over the top level's, and
what is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from specbridge import ConfigError, ErrorCode
from specbridge.config import CodeModeConfig, Config, config_from_data


def read(data: object) -> Config:
    return config_from_data(data, source="specbridge.yaml", base_dir=Path("/srv/conf"))


def test_without_the_key_no_api_is_in_code_mode_and_the_limits_are_the_defaults() -> None:
    config = read({"apis": {"orders": {"spec": "o.yaml"}}})
    assert config.apis["orders"].code_mode == CodeModeConfig(enabled=False)
    assert config.code_mode == CodeModeConfig(time=10.0, memory=64 * 1024 * 1024, calls=50, workers=4)


@pytest.mark.parametrize(("value", "enabled"), [("on", True), ("off", False), (True, True), (False, False)])
def test_on_and_off_turn_an_api_to_code_mode_or_not(value: object, enabled: bool) -> None:
    api = read({"apis": {"orders": {"spec": "o.yaml", "code_mode": value}}}).apis["orders"]
    assert api.code_mode.enabled is enabled


def test_an_apis_own_limits_turn_it_on_over_the_top_levels() -> None:
    config = read(
        {
            "code_mode": {"time": "5s", "calls": 20, "memory": "32MB", "workers": 2},
            "apis": {
                "orders": {"spec": "o.yaml", "code_mode": {"calls": 200, "output": "2MB"}},
                "users": {"spec": "u.yaml", "code_mode": "on"},
            },
        }
    )
    orders, users = config.apis["orders"].code_mode, config.apis["users"].code_mode
    assert (orders.enabled, orders.time, orders.calls, orders.memory, orders.output) == (
        True, 5.0, 200, 32_000_000, 2_000_000,
    )  # fmt: skip
    assert (users.enabled, users.calls, users.output) == (True, 20, 1024 * 1024)
    assert config.code_mode.workers == 2


@pytest.mark.parametrize(
    ("data", "key"),
    [
        ({"apis": {"orders": {"spec": "o.yaml", "code_mode": "yes"}}}, "apis.orders.code_mode"),
        ({"apis": {"orders": {"spec": "o.yaml", "code_mode": {"workers": 2}}}}, "apis.orders.code_mode"),
        ({"code_mode": {"calls": 0}, "apis": {}}, "code_mode.calls"),
        ({"code_mode": {"memory": "lots"}, "apis": {}}, "code_mode.memory"),
        ({"code_mode": {"time": -1}, "apis": {}}, "code_mode.time"),
        ({"code_mode": {"depth": 5}, "apis": {}}, "code_mode.depth"),
    ],
)
def test_a_code_mode_setting_out_of_its_range_is_refused_naming_the_key(data: object, key: str) -> None:
    with pytest.raises(ConfigError) as raised:
        read(data)
    assert raised.value.code is ErrorCode.CONFIG_INVALID
    assert f": {key}" in raised.value.message


TOOLSET_TOOLS = [{"api": "orders", "tool": "getOrder"}]


def test_a_toolset_takes_code_mode_as_an_api_does_over_the_top_levels_limits() -> None:
    config = read(
        {
            "code_mode": {"calls": 20},
            "apis": {"orders": {"spec": "o.yaml"}},
            "toolsets": {
                "plain": {"tools": TOOLSET_TOOLS},
                "on": {"tools": TOOLSET_TOOLS, "code_mode": "on"},
                "own": {"tools": TOOLSET_TOOLS, "code_mode": {"time": "3s"}},
            },
        }
    )
    plain, on, own = (config.toolsets[name].code_mode for name in ("plain", "on", "own"))
    assert (plain.enabled, on.enabled, on.calls) == (False, True, 20)
    assert (own.enabled, own.time, own.calls) == (True, 3.0, 20)
    assert config.apis["orders"].code_mode.enabled is False  # the toolset's setting is its own


@pytest.mark.parametrize("value", ["yes", {"workers": 2}, {"calls": 0}])
def test_a_toolsets_code_mode_out_of_its_range_is_refused_naming_its_key(value: object) -> None:
    data = {
        "apis": {"orders": {"spec": "o.yaml"}},
        "toolsets": {"support": {"tools": TOOLSET_TOOLS, "code_mode": value}},
    }
    with pytest.raises(ConfigError) as raised:
        read(data)
    assert raised.value.code is ErrorCode.CONFIG_INVALID
    assert ": toolsets.support.code_mode" in raised.value.message
