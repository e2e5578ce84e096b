"""`toolsets:` read: tools picked from several APIs, each optionally renamed; every clash refused when
the config is loaded, with `toolset-clash`."""

from __future__ import annotations

from typing import Any

import pytest

from specbridge import ErrorCode
from specbridge._errors import ConfigError
from specbridge.config import ToolsetTool, config_from_data

APIS = {
    "orders": {"spec": "orders.yaml", "base_url": "https://orders.example.com"},
    "crm": {"spec": "crm.yaml", "base_url": "https://crm.example.com"},
}


def read(toolsets: Any, **top: Any) -> Any:
    return config_from_data({"apis": APIS, "toolsets": toolsets, **top}, source="specbridge.yaml")


def refused(toolsets: Any) -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        read(toolsets)
    return caught.value


def test_a_toolset_picks_tools_of_several_apis_each_served_by_its_new_name_or_its_own() -> None:
    config = read(
        {
            "support": {
                "title": "Support",
                "tools": [
                    {"api": "orders", "tool": "refundOrder", "name": "refund", "description": "Refund it."},
                    {"api": "crm", "tool": "findCustomer"},
                ],
            }
        }
    )
    support = config.toolsets["support"]
    assert support.tools == (
        ToolsetTool("orders", "refundOrder", "refund", None, "Refund it."),
        ToolsetTool("crm", "findCustomer", "findCustomer"),
    )
    assert support.apis == ("orders", "crm") and support.title == "Support" and support.search == "auto"


@pytest.mark.parametrize(
    ("toolsets", "key", "words"),
    [
        (
            {"t": {"tools": [{"api": "orders", "tool": "get"}, {"api": "crm", "tool": "get"}]}},
            "toolsets.t.tools[1]",
            "as toolsets.t.tools[0] does",
        ),
        (
            {"t": {"tools": [{"api": "orders", "tool": "a"}, {"api": "crm", "tool": "b", "name": "a"}]}},
            "toolsets.t.tools[1]",
            "serves 'a'",
        ),
        (
            {"t": {"tools": [{"api": "orders", "tool": "x.y"}, {"api": "crm", "tool": "x_y"}]}},
            "toolsets.t.tools[1]",
            "OpenAI and Anthropic would see",
        ),
        (
            {"t": {"tools": [{"api": "orders", "tool": "a", "name": "search_tools"}]}},
            "toolsets.t.tools[0]",
            "own",
        ),
        ({"orders": {"tools": [{"api": "crm", "tool": "a"}]}}, "toolsets.orders", "an API's name"),
    ],
)
def test_a_clash_is_refused_at_load_naming_the_key(toolsets: Any, key: str, words: str) -> None:
    error = refused(toolsets)
    assert error.code is ErrorCode.TOOLSET_CLASH
    assert error.key == key and words in str(error)


def test_a_toolset_of_an_api_the_config_does_not_have_is_an_invalid_config() -> None:
    error = refused({"t": {"tools": [{"api": "billing", "tool": "a"}]}})
    assert error.code is ErrorCode.CONFIG_INVALID and error.key == "toolsets.t.tools[0].api"
    assert "orders, crm" in str(error)


def test_a_client_may_be_let_onto_a_toolset_by_its_name() -> None:
    config = read(
        {"t": {"tools": [{"api": "orders", "tool": "a"}]}},
        clients={"bot": {"key_sha256": "a" * 64, "apis": ["t", "crm"]}},
    )
    assert config.clients["bot"].apis == ("t", "crm")


def test_a_toolset_entry_without_its_tool_is_refused_by_the_schema() -> None:
    error = refused({"t": {"tools": [{"api": "orders"}]}})
    assert error.code is ErrorCode.CONFIG_INVALID and "toolsets.t.tools[0]" in str(error)
