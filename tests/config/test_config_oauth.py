"""`apis.<name>.oauth`: the URLs token checks fetch obey the API's egress policy and must be https (http
only for a host under egress.allow), the two ways of checking exclude each other, and a client without a
key is only valid where tokens are taken."""

from __future__ import annotations

from typing import Any

import pytest

from specbridge import ConfigError
from specbridge.config import Config, IntrospectionConfig, OAuthConfig, Secret, config_from_data

ISSUER = "https://auth.example.com/realms/shop"


def load(oauth: dict[str, Any], *, allow: list[str] | None = None, clients: Any = None) -> Config:
    api: dict[str, Any] = {"spec": "/a.yaml", "base_url": "https://api.example.com", "oauth": oauth}
    if allow is not None:
        api["egress"] = {"allow": allow}
    data: dict[str, Any] = {"apis": {"shop": api}}
    if clients is not None:
        data["clients"] = clients
    return config_from_data(data, source="c.yaml")


def test_an_oauth_api_reads_into_its_settings() -> None:
    config = load(
        {
            "issuer": ISSUER,
            "audience": "https://mcp.example.com/shop/mcp",
            "jwks_uri": "https://auth.example.com/jwks",
            "scopes_supported": ["shop", "shop"],
            "allow_unknown_clients": True,
        }
    )
    assert config.apis["shop"].oauth == OAuthConfig(
        issuer=ISSUER,
        audience="https://mcp.example.com/shop/mcp",
        jwks_uri="https://auth.example.com/jwks",
        scopes_supported=("shop",),
        allow_unknown_clients=True,
    )


def test_introspection_keeps_its_secret_as_a_reference() -> None:
    oauth = (
        load(
            {
                "issuer": ISSUER,
                "introspection": {
                    "url": "https://auth.example.com/introspect",
                    "client_id": "gw",
                    "secret": "env:X",
                },
            }
        )
        .apis["shop"]
        .oauth
    )
    assert oauth is not None
    assert oauth.introspection == IntrospectionConfig(
        "https://auth.example.com/introspect", "gw", Secret("env:X")
    )


def test_an_api_without_oauth_has_none() -> None:
    config = config_from_data({"apis": {"shop": {"spec": "/a.yaml"}}}, source="c.yaml")
    assert config.apis["shop"].oauth is None


def test_jwks_uri_and_introspection_exclude_each_other() -> None:
    with pytest.raises(ConfigError) as caught:
        load(
            {
                "issuer": ISSUER,
                "jwks_uri": "https://auth.example.com/jwks",
                "introspection": {"url": "https://auth.example.com/i", "client_id": "gw", "secret": "env:X"},
            }
        )
    assert caught.value.key == "apis.shop.oauth.jwks_uri"


@pytest.mark.parametrize(
    ("oauth", "key"),
    [
        ({"issuer": ISSUER, "jwks_uri": "https://127.0.0.1:9000/jwks"}, "apis.shop.oauth.jwks_uri"),
        ({"issuer": "https://10.0.0.7/realms/x"}, "apis.shop.oauth.issuer"),
        (
            {
                "issuer": ISSUER,
                "introspection": {"url": "https://auth.internal/i", "client_id": "g", "secret": "env:X"},
            },
            "apis.shop.oauth.introspection.url",
        ),
    ],
)
def test_a_token_check_on_a_private_address_needs_an_egress_exception(
    oauth: dict[str, Any], key: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        load(oauth)
    assert caught.value.key == key
    assert "egress.allow" in str(caught.value)


def test_a_jwks_over_plain_http_is_refused_on_a_public_host() -> None:
    with pytest.raises(ConfigError) as caught:
        load({"issuer": ISSUER, "jwks_uri": "http://auth.example.com/jwks"})
    assert caught.value.key == "apis.shop.oauth.jwks_uri"
    assert "https://" in str(caught.value)


def test_an_authorization_server_under_egress_allow_may_use_http() -> None:
    config = load({"issuer": "http://127.0.0.1:4593/api/oidc"}, allow=["127.0.0.1:4593"])
    oauth = config.apis["shop"].oauth
    assert oauth is not None and oauth.issuer == "http://127.0.0.1:4593/api/oidc"


def test_an_audience_with_a_query_is_refused() -> None:
    with pytest.raises(ConfigError) as caught:
        load(
            {
                "issuer": ISSUER,
                "jwks_uri": "https://a.example/j",
                "audience": "https://mcp.example.com/mcp?x=1",
            }
        )
    assert caught.value.key == "apis.shop.oauth.audience"


@pytest.mark.parametrize(
    ("oauth", "key"),
    [
        ({"jwks_uri": "https://a.example/j"}, "apis.shop.oauth"),
        ({"issuer": "auth.example.com"}, "apis.shop.oauth.issuer"),
        ({"issuer": ISSUER, "scopes_supported": ["two words"]}, "apis.shop.oauth.scopes_supported[0]"),
        (
            {
                "issuer": ISSUER,
                "introspection": {"url": "https://a.example/i", "client_id": "g", "secret": "s3cr3t"},
            },
            None,
        ),
        ({"issuer": ISSUER, "tenant": "x"}, "apis.shop.oauth"),
    ],
)
def test_the_schema_says_what_an_oauth_entry_may_hold(oauth: dict[str, Any], key: str | None) -> None:
    with pytest.raises(ConfigError) as caught:
        load(oauth)
    if key is not None:
        assert caught.value.key.startswith(key)
    assert "s3cr3t" not in str(caught.value)


def test_a_client_without_a_key_is_valid_where_tokens_are_taken() -> None:
    config = load(
        {"issuer": ISSUER, "jwks_uri": "https://a.example/j"}, clients={"robot": {"apis": ["shop"]}}
    )
    assert config.clients["robot"].key_sha256 == ""
    assert config.clients["robot"].apis == ("shop",)


def test_a_client_without_a_key_and_no_oauth_api_is_refused() -> None:
    with pytest.raises(ConfigError) as caught:
        config_from_data(
            {"apis": {"shop": {"spec": "/a.yaml"}}, "clients": {"robot": {"apis": ["shop"]}}}, source="c.yaml"
        )
    assert caught.value.key == "clients.robot.key_sha256"
    assert "oauth" in str(caught.value)
