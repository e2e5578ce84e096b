"""`apis.<name>.auth` of the `oauth2_*` types and the top-level `store_key`: each type takes its own keys,
the token endpoint obeys the API's egress policy and must be https (http only for a host under
egress.allow), a per-client API names the gateway's callback, and tokens need a key to be sealed with."""

from __future__ import annotations

from typing import Any

import pytest

from specbridge import ConfigError
from specbridge.config import Config, GrantConfig, Secret, config_from_data

TOKEN_URL = "https://auth.example.com/oauth/token"
CLIENT_CREDENTIALS = {
    "type": "oauth2_client_credentials",
    "token_url": TOKEN_URL,
    "client_id": "specbridge",
    "client_secret": "env:CRM_CLIENT_SECRET",
    "scopes": ["crm.read", "crm.read", "crm.write"],
    "audience": "https://api.example.com",
}
PER_CLIENT = {
    "type": "oauth2_authorization_code",
    "authorize_url": "https://auth.example.com/authorize",
    "token_url": TOKEN_URL,
    "client_id": "specbridge",
    "scopes": ["orders"],
    "per_client": True,
    "redirect_uri": "https://gateway.example.com/oauth/callback/crm",
}


def load(
    auth: dict[str, Any], *, allow: list[str] | None = None, store_key: str | None = "env:KEY"
) -> Config:
    api: dict[str, Any] = {"spec": "/a.yaml", "base_url": "https://api.example.com", "auth": auth}
    if allow is not None:
        api["egress"] = {"allow": allow}
    data: dict[str, Any] = {"apis": {"crm": api}}
    if store_key is not None:
        data["store_key"] = store_key
    return config_from_data(data, source="c.yaml")


def refused(auth: dict[str, Any], **options: Any) -> str:
    with pytest.raises(ConfigError) as error:
        load(auth, **options)
    return error.value.message


def test_client_credentials_read_into_the_grant_with_the_store_key_beside_it() -> None:
    config = load(CLIENT_CREDENTIALS)
    auth = config.apis["crm"].auth
    assert auth.type == "oauth2_client_credentials" and auth.secret is None
    assert auth.grant == GrantConfig(
        grant="client_credentials",
        token_url=TOKEN_URL,
        client_id="specbridge",
        client_secret=Secret("env:CRM_CLIENT_SECRET"),
        scopes=("crm.read", "crm.write"),
        audience="https://api.example.com",
        store_key=Secret("env:KEY"),
    )
    assert config.store_key == Secret("env:KEY") and not auth.grant.per_client


def test_a_refresh_token_grant_and_a_per_client_grant_read_their_own_keys() -> None:
    refresh = {
        "type": "oauth2_refresh_token",
        "token_url": TOKEN_URL,
        "client_id": "c",
        "refresh_token": "env:R",
    }
    grant = load(refresh).apis["crm"].auth.grant
    assert grant is not None and grant.refresh_token == Secret("env:R") and grant.client_secret is None
    per_client = load(PER_CLIENT).apis["crm"].auth.grant
    assert per_client is not None and per_client.per_client
    assert per_client.redirect_uri == "https://gateway.example.com/oauth/callback/crm"


@pytest.mark.parametrize(
    ("change", "key", "said"),
    [
        ({"client_secret": None}, "client_secret", "is needed with type oauth2_client_credentials"),
        ({"refresh_token": "env:R"}, "refresh_token", "is not used with type oauth2_client_credentials"),
        ({"secret": "env:S"}, "secret", "the gateway fetches the token itself"),
        ({"token_url": "https://10.0.0.5/token"}, "token_url", "egress.allow"),
        ({"token_url": "http://auth.example.com/token"}, "token_url", "must be an https:// URL"),
    ],
)
def test_a_client_credentials_grant_with_a_wrong_key_names_it(
    change: dict[str, Any], key: str, said: str
) -> None:
    auth = {**CLIENT_CREDENTIALS, **change}
    message = refused({name: value for name, value in auth.items() if value is not None})
    assert f"apis.crm.auth.{key}" in message and said in message


def test_a_token_endpoint_on_a_host_under_egress_allow_may_be_plain_http() -> None:
    auth = {**CLIENT_CREDENTIALS, "token_url": "http://127.0.0.1:4444/token"}
    grant = load(auth, allow=["127.0.0.1:4444"]).apis["crm"].auth.grant
    assert grant is not None and grant.token_url == "http://127.0.0.1:4444/token"


@pytest.mark.parametrize(
    ("change", "key", "said"),
    [
        ({"per_client": False}, "per_client", "must be true"),
        ({"scopes": []}, "scopes", "at least one scope"),
        ({"redirect_uri": "https://gateway.example.com/callback"}, "redirect_uri", "/oauth/callback/crm"),
        ({"redirect_uri": "http://gateway.example.com/oauth/callback/crm"}, "redirect_uri", "https://"),
        (
            {"authorize_url": "https://auth.example.com/authorize#x"},
            "authorize_url",
            "without user name or fragment",
        ),
        ({"audience": "x"}, "audience", "is not used with type oauth2_authorization_code"),
    ],
)
def test_a_per_client_grant_with_a_wrong_key_names_it(change: dict[str, Any], key: str, said: str) -> None:
    message = refused({**PER_CLIENT, **change})
    assert f"apis.crm.auth.{key}" in message and said in message


def test_a_callback_on_loopback_may_be_plain_http() -> None:
    auth = {**PER_CLIENT, "redirect_uri": "http://127.0.0.1:8765/oauth/callback/crm"}
    grant = load(auth).apis["crm"].auth.grant
    assert grant is not None and grant.redirect_uri == "http://127.0.0.1:8765/oauth/callback/crm"


def test_grant_keys_are_refused_on_a_static_type() -> None:
    message = refused({"type": "bearer", "secret": "env:T", "token_url": TOKEN_URL})
    assert "apis.crm.auth.token_url" in message and "only used with the oauth2_* types" in message


def test_an_oauth2_api_without_a_store_key_is_refused_saying_how_to_make_one() -> None:
    message = refused(CLIENT_CREDENTIALS, store_key=None)
    assert "store_key" in message and "apis.crm.auth (oauth2_client_credentials)" in message
    assert "openssl rand -base64 32" in message


def test_a_store_key_must_be_a_reference_never_the_key_itself() -> None:
    message = refused(CLIENT_CREDENTIALS, store_key="the-key-written-in-the-config-0123456789")
    assert "store_key" in message and "env:NAME" in message
    assert "the-key-written-in-the-config" not in message
