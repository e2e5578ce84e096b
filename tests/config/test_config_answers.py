"""`apis.<name>.answers` and `tools.<name>.answers`: the budget and `select`, defaults, the tool's keys over
the API's, and what is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from specbridge import ConfigError, ErrorCode
from specbridge.config import AnswersConfig, Config, config_from_data


def read(data: object) -> Config:
    return config_from_data(data, source="specbridge.yaml", base_dir=Path("/srv/conf"))


def test_without_the_key_an_answer_gets_about_20000_tokens_and_no_fields() -> None:
    api = read({"apis": {"orders": {"spec": "o.yaml"}}}).apis["orders"]
    assert api.answers == AnswersConfig(max_tokens=20_000, select=False)


def test_a_tool_takes_the_apis_answers_with_its_own_keys_on_top() -> None:
    api = read(
        {
            "apis": {
                "orders": {
                    "spec": "o.yaml",
                    "answers": {"max_tokens": 8000, "select": True},
                    "tools": {"listOrders": {"answers": {"max_tokens": 50000}}, "getOrder": {"timeout": 5}},
                }
            }
        }
    ).apis["orders"]
    assert api.answers == AnswersConfig(max_tokens=8000, select=True)
    assert api.tools["listOrders"].answers == AnswersConfig(max_tokens=50000, select=True)
    assert api.tools["getOrder"].answers is None  # the API's


@pytest.mark.parametrize(
    ("answers", "key"),
    [
        ({"max_tokens": 10}, "apis.orders.answers.max_tokens"),
        ({"max_tokens": "lots"}, "apis.orders.answers.max_tokens"),
        ({"select": "yes"}, "apis.orders.answers.select"),
        ({"fields": ["id"]}, "apis.orders.answers"),
    ],
)
def test_a_wrong_value_is_refused_naming_the_key(answers: dict[str, object], key: str) -> None:
    with pytest.raises(ConfigError) as caught:
        read({"apis": {"orders": {"spec": "o.yaml", "answers": answers}}})
    assert caught.value.code is ErrorCode.CONFIG_INVALID
    assert key in caught.value.message
