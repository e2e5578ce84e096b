"""`webhooks:` (the sender's lease and attempt timeout) and the events a client's webhook subscribes to."""

from __future__ import annotations

from pathlib import Path

import pytest

from specbridge import ConfigError, ErrorCode
from specbridge.config import Config, WebhooksConfig, config_from_data

CLIENT = {"key_sha256": "a" * 64, "apis": ["orders"]}
HOOK = {"url": "https://hooks.example.com/sb", "secret": "env:HOOK"}


def read(data: dict[str, object]) -> Config:
    return config_from_data(
        {"apis": {"orders": {"spec": "o.yaml"}}, **data}, source="specbridge.yaml", base_dir=Path("/srv/conf")
    )


def test_the_sender_leases_a_delivery_for_a_minute_and_gives_an_attempt_ten_seconds_by_default() -> None:
    assert read({}).webhooks == WebhooksConfig(lease=60.0, timeout=10.0)
    assert read({"webhooks": {"lease": "5s", "timeout": 2}}).webhooks == WebhooksConfig(
        lease=5.0, timeout=2.0
    )
    assert read({"webhooks": {"lease": "2m"}}).webhooks == WebhooksConfig(lease=120.0, timeout=10.0)


@pytest.mark.parametrize(
    ("webhooks", "key"),
    [
        ({"lease": 5}, "webhooks.timeout"),  # the default 10 s attempt would outlive a 5 s lease
        ({"lease": 3, "timeout": 3}, "webhooks.timeout"),
        ({"lease": 0}, "webhooks.lease"),
        ({"poll": 1}, "webhooks"),
    ],
)
def test_an_attempt_that_could_outlive_its_lease_or_a_wrong_value_is_refused(
    webhooks: dict[str, object], key: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        read({"webhooks": webhooks})
    assert caught.value.code is ErrorCode.CONFIG_INVALID
    assert key in caught.value.message


def test_a_clients_webhook_may_subscribe_to_its_own_approval_events() -> None:
    events = ["approval.requested", "approval.answered", "call.completed"]
    config = read({"clients": {"bot": {**CLIENT, "webhook": {**HOOK, "events": events}}}})
    webhook = config.clients["bot"].webhook
    assert webhook is not None and webhook.events == tuple(events)
    plain = read({"clients": {"bot": {**CLIENT, "webhook": HOOK}}}).clients["bot"].webhook
    assert plain is not None and plain.events == ("call.completed",)
    with pytest.raises(ConfigError) as caught:
        read({"clients": {"bot": {**CLIENT, "webhook": {**HOOK, "events": ["approval.expired"]}}}})
    assert "clients.bot.webhook.events" in caught.value.message
