"""`approvals:`, `admins:` and `store:` in specbridge.yaml: durations, per-API overrides, webhook
secrets, admin keys apart from client keys, and a store next to the config."""

from __future__ import annotations

from pathlib import Path

import pytest

from specbridge import ConfigError, ErrorCode
from specbridge.config import ApprovalsConfig, Config, config_from_data, load_config, parse_duration
from specbridge.store import DEFAULT_STORE

KEY_A = "a" * 64
KEY_B = "b" * 64


def read(data: object, base: Path | None = None) -> Config:
    return config_from_data(data, source="specbridge.yaml", base_dir=base or Path("/srv/conf"))


def failure(data: object) -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        read(data)
    assert caught.value.code is ErrorCode.CONFIG_INVALID
    return caught.value


@pytest.mark.parametrize(
    ("given", "expected"),
    [(50, 50.0), (0.5, 0.5), ("50", 50.0), ("50s", 50.0), ("10m", 600.0), ("24h", 86400.0), ("7d", 604800.0)],
)
def test_a_duration_is_seconds_as_a_number_or_with_a_unit(given: float | str, expected: float) -> None:
    assert parse_duration(given) == expected


def test_without_approvals_the_defaults_are_fifty_seconds_a_day_and_the_operator() -> None:
    config = read({"apis": {"orders": {"spec": "o.yaml"}}})
    assert config.approvals_for("orders") == ApprovalsConfig(wait=50.0, expire=86400.0, by="operator")
    assert config.approvals_for() == config.approvals


def test_an_api_overrides_the_top_level_approvals_key_by_key() -> None:
    config = read(
        {
            "approvals": {"wait": "20s", "expire": "24h", "by": "operator"},
            "apis": {
                "orders": {"spec": "o.yaml", "approvals": {"expire": "10m", "by": "client"}},
                "users": {"spec": "u.yaml"},
            },
        }
    )
    assert config.approvals_for("orders") == ApprovalsConfig(wait=20.0, expire=600.0, by="client")
    assert config.approvals_for("users") == ApprovalsConfig(wait=20.0, expire=86400.0, by="operator")


def test_a_webhook_takes_one_secret_or_two_while_rotating_as_references() -> None:
    config = read(
        {
            "approvals": {"webhook": {"url": "https://hooks.example/sb", "secret": "env:WH"}},
            "apis": {
                "orders": {
                    "spec": "o.yaml",
                    "approvals": {
                        "webhook": {"url": "https://other.example/sb", "secret": ["env:NEW", "file:old.key"]}
                    },
                }
            },
        }
    )
    top = config.approvals.webhook
    assert top is not None and [s.reference for s in top.secrets] == ["env:WH"]
    orders = config.approvals_for("orders").webhook
    assert orders is not None and orders.url == "https://other.example/sb"
    assert [s.reference for s in orders.secrets] == ["env:NEW", "file:/srv/conf/old.key"]


def test_a_webhook_url_on_a_private_address_needs_its_own_egress_allow() -> None:
    hook = {"url": "http://127.0.0.1:9000/hook", "secret": "env:WH"}
    error = failure({"approvals": {"webhook": hook}})
    assert error.key == "approvals.webhook.url"
    assert "egress.allow" in error.message
    allowed = read({"approvals": {"webhook": {**hook, "egress": {"allow": ["127.0.0.1:9000"]}}}})
    assert allowed.approvals.webhook is not None
    assert allowed.approvals.webhook.egress.allow == ("127.0.0.1:9000",)


@pytest.mark.parametrize(
    ("approvals", "key", "says"),
    [
        ({"wait": "soon"}, "approvals.wait", "with a unit"),
        ({"wait": "2h"}, "approvals.wait", "at most 3600"),
        ({"expire": 0}, "approvals.expire", "above 0"),
        ({"expire": "24 hours"}, "approvals.expire", "24h"),
        ({"by": "admin"}, "approvals.by", "operator or client"),
        (
            {"webhook": {"url": "https://h.example", "secret": "whsec_abc"}},
            "approvals.webhook.secret",
            "env:",
        ),
        ({"webhook": {"url": "https://h.example"}}, "approvals.webhook.secret", "is missing"),
        ({"wiat": 5}, "approvals.wiat", "did you mean `wait`"),
    ],
)
def test_a_wrong_approvals_key_says_what_is_valid(approvals: object, key: str, says: str) -> None:
    error = failure({"approvals": approvals})
    assert error.key == key
    assert says in error.message
    assert "whsec_abc" not in error.message


def test_admins_are_read_with_their_key_hash_lowercased() -> None:
    config = read({"admins": {"alice": {"key_sha256": KEY_A.upper()}}})
    assert config.admins["alice"].key_sha256 == KEY_A
    assert config.admins["alice"].id == "alice"


def test_an_admin_key_that_is_also_a_client_key_is_refused() -> None:
    error = failure(
        {
            "apis": {"orders": {"spec": "o.yaml"}},
            "clients": {"bot": {"key_sha256": KEY_A, "apis": ["orders"]}},
            "admins": {"alice": {"key_sha256": KEY_A}, "bob": {"key_sha256": KEY_B}},
        }
    )
    assert error.key == "admins.alice.key_sha256"
    assert "client" in error.message


def test_an_admin_without_a_proper_key_hash_is_refused() -> None:
    error = failure({"admins": {"alice": {"key_sha256": "short"}}})
    assert error.key == "admins.alice.key_sha256"
    assert "--admin" in error.message
    assert failure({"admins": {"alice": {"key": KEY_A}}}).key == "admins.alice.key"


def test_the_default_store_is_the_store_package_s_default_next_to_the_config(tmp_path: Path) -> None:
    path = tmp_path / "specbridge.yaml"
    path.write_text("apis: {}\n", encoding="utf-8")
    config = load_config(path)
    relative = DEFAULT_STORE.removeprefix("sqlite:///")
    assert config.store == f"sqlite:///{tmp_path.resolve() / relative}"


def test_a_relative_sqlite_store_is_made_absolute_and_other_stores_are_kept() -> None:
    assert read({"store": "sqlite:///state/db.sqlite?namespace=a"}).store == (
        "sqlite:////srv/conf/state/db.sqlite?namespace=a"
    )
    assert read({"store": "sqlite:////var/lib/sb.db"}).store == "sqlite:////var/lib/sb.db"
    assert read({"store": "redis://127.0.0.1:6379/0"}).store == "redis://127.0.0.1:6379/0"


def test_the_config_s_default_store_is_the_store_package_s_default() -> None:
    """config/ may not import store/, so it keeps its own copy of the URL; this keeps them equal."""
    from specbridge import config

    assert config.DEFAULT_STORE == DEFAULT_STORE


def test_an_approved_call_is_sent_on_answer_unless_an_api_says_on_retry() -> None:
    config = read(
        {
            "apis": {
                "orders": {"spec": "o.yaml"},
                "billing": {"spec": "b.yaml", "approvals": {"send": "on_retry"}},
            }
        }
    )
    assert config.approvals.send == "on_answer"
    assert (config.approvals_for("orders").send, config.approvals_for("billing").send) == (
        "on_answer",
        "on_retry",
    )


def test_another_send_is_refused_naming_both_choices() -> None:
    error = failure({"approvals": {"send": "later"}})
    assert "approvals.send" in error.message
    assert "on_answer" in error.message and "on_retry" in error.message
