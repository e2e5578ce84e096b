"""A secret pasted where a config key belongs is never repeated in a message or a log: say where, not what."""

from __future__ import annotations

import base64
import logging
import secrets
from pathlib import Path

import pytest

from specbridge import ConfigError, load_config
from specbridge.config import config_from_data, looks_like_secret
from specbridge.gateway import Gateway

# Built at run time so no scanner mistakes these test values for leaked credentials.
TOKENS = [
    "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8",
    "sk_" + "live_51HxYzAbCdEfGhIjKlMnOpQr",
    "xoxb-" + "1234567890-0987654321-AbCdEfGhIjKlMnOp",
    "glpat-" + "x9Y8z7W6v5U4t3S2r1Q0",
    base64.b64encode(b"user:correct horse battery staple").decode(),
    "9f2c4e1a7b3d5f60" * 2 + "aa",
]
NAMES = [
    "base_url",
    "include_deprecated",
    "requires_approval",
    "listOrdersForCustomer",
    "repos/list-commits-for-repository",
    "#/components/schemas/OrderLineItem",
    "application/vnd.api+json",
]


@pytest.mark.parametrize("token", TOKENS)
def test_tokens_of_the_common_shapes_look_like_secrets(token: str) -> None:
    assert looks_like_secret(token)


@pytest.mark.parametrize("name", NAMES)
def test_names_people_write_do_not_look_like_secrets(name: str) -> None:
    assert not looks_like_secret(name)


def test_random_keys_look_like_secrets() -> None:
    keys = [secrets.token_urlsafe(24) for _ in range(200)] + [secrets.token_hex(20) for _ in range(50)]
    missed = [key for key in keys if not looks_like_secret(key)]
    assert len(missed) <= 5, missed


@pytest.mark.parametrize("token", TOKENS)
def test_an_unknown_key_that_looks_like_a_secret_is_reported_by_where_it_is_not_what_it_is(
    token: str,
) -> None:
    with pytest.raises(ConfigError) as caught:
        config_from_data(
            {"apis": {"a": {"spec": "/a.yaml", "auth": {"type": "bearer", token: None}}}}, source="c.yaml"
        )
    message = str(caught.value)
    assert token not in message
    assert caught.value.key == "apis.a.auth"
    assert "not shown" in message
    assert "env:NAME" in message


def test_a_secret_pasted_at_the_top_level_is_not_shown() -> None:
    with pytest.raises(ConfigError) as caught:
        config_from_data({TOKENS[0]: 1}, source="c.yaml")
    assert TOKENS[0] not in str(caught.value)
    assert "the top level" in str(caught.value)


def test_a_secret_pasted_as_an_api_name_is_hidden_in_the_key_path() -> None:
    with pytest.raises(ConfigError) as caught:
        config_from_data({"apis": {TOKENS[1]: {"spec": 5}}}, source="c.yaml")
    assert TOKENS[1] not in str(caught.value)
    assert caught.value.key.startswith("apis.<hidden")
    assert caught.value.key.endswith(".spec")


def test_a_long_unknown_key_with_no_close_valid_key_is_not_shown_either() -> None:
    pasted = "correct-horse-battery-staple-and-more"
    with pytest.raises(ConfigError) as caught:
        config_from_data({"apis": {"a": {"spec": "/a.yaml", pasted: 1}}}, source="c.yaml")
    assert pasted not in str(caught.value)


async def test_a_reload_that_fails_on_a_pasted_secret_does_not_log_it(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "shop.yaml").write_text(
        "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths: {}\n", encoding="utf-8"
    )
    config = tmp_path / "specbridge.yaml"
    config.write_text("apis:\n  shop: {spec: ./shop.yaml}\n", encoding="utf-8")
    gateway = Gateway(load_config(config), config_path=str(config))
    await gateway.start()
    try:
        config.write_text(f"apis:\n  shop: {{spec: ./shop.yaml, {TOKENS[0]}: 1}}\n", encoding="utf-8")
        with caplog.at_level(logging.DEBUG, logger="specbridge"):
            assert await gateway.reload_changed() == []
        assert any("config reload failed" in record.getMessage() for record in caplog.records)
        assert TOKENS[0] not in caplog.text
    finally:
        await gateway.aclose()


def test_a_secret_pasted_into_an_egress_exception_is_not_shown() -> None:
    with pytest.raises(ConfigError) as caught:
        config_from_data(
            {"apis": {"a": {"spec": "/a.yaml", "egress": {"allow": [f"api.example.com:{TOKENS[1]}"]}}}},
            source="c.yaml",
        )
    assert caught.value.key == "apis.a.egress.allow[0]"
    assert TOKENS[1] not in str(caught.value)
