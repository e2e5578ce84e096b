"""`idempotency:` and `calls:` in specbridge.yaml: defaults, durations, per-API overrides key by key, and
what is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from specbridge import ConfigError, ErrorCode
from specbridge.config import CallsConfig, Config, IdempotencyConfig, config_from_data


def read(data: object) -> Config:
    return config_from_data(data, source="specbridge.yaml", base_dir=Path("/srv/conf"))


def test_without_the_keys_non_idempotent_tools_take_keys_for_a_day_and_calls_are_not_long() -> None:
    config = read({"apis": {"orders": {"spec": "o.yaml"}}})
    assert config.apis["orders"].idempotency == IdempotencyConfig(ttl=86400.0, tools="auto")
    assert config.apis["orders"].calls == CallsConfig(wait=50.0, long=False)


def test_an_api_overrides_the_top_level_key_by_key() -> None:
    config = read(
        {
            "idempotency": {"ttl": "2h", "tools": "all"},
            "calls": {"long": True, "wait": "20s"},
            "apis": {
                "orders": {"spec": "o.yaml", "idempotency": {"tools": "none"}, "calls": {"wait": 5}},
                "users": {"spec": "u.yaml"},
            },
        }
    )
    assert config.apis["orders"].idempotency == IdempotencyConfig(ttl=7200.0, tools="none")
    assert config.apis["orders"].calls == CallsConfig(wait=5.0, long=True)
    assert config.apis["users"].idempotency == IdempotencyConfig(ttl=7200.0, tools="all")
    assert config.apis["users"].calls == CallsConfig(wait=20.0, long=True)


@pytest.mark.parametrize(
    ("data", "key"),
    [
        ({"idempotency": {"tools": "some"}}, "idempotency.tools"),
        ({"idempotency": {"ttl": 0}}, "idempotency.ttl"),
        ({"idempotency": {"keep": "1h"}}, "idempotency"),
        ({"calls": {"wait": 7200}}, "calls.wait"),
        ({"calls": {"long": "yes"}}, "calls.long"),
    ],
)
def test_a_wrong_value_is_refused_naming_the_key(data: dict[str, object], key: str) -> None:
    with pytest.raises(ConfigError) as caught:
        read({**data, "apis": {"orders": {"spec": "o.yaml"}}})
    assert caught.value.code is ErrorCode.CONFIG_INVALID
    assert key in caught.value.message


def test_a_clients_webhook_takes_call_completed_by_default_and_refuses_other_events() -> None:
    client = {"key_sha256": "a" * 64, "apis": ["orders"]}
    hook = {"url": "https://hooks.example.com/sb", "secret": "env:HOOK"}
    config = read({"apis": {"orders": {"spec": "o.yaml"}}, "clients": {"bot": {**client, "webhook": hook}}})
    webhook = config.clients["bot"].webhook
    assert webhook is not None and webhook.events == ("call.completed",)
    with pytest.raises(ConfigError) as caught:
        read(
            {
                "apis": {"orders": {"spec": "o.yaml"}},
                "clients": {"bot": {**client, "webhook": {**hook, "events": ["order.shipped"]}}},
            }
        )
    assert "clients.bot.webhook.events" in caught.value.message
