"""`oauth_server:`: the gateway's own authorization server. Its issuer is an origin, it needs
`store_key`, its provider is a server the gateway asks (https, or a host under its egress), its rules name
clients and admins that exist with exactly one of `value` and `pattern`, an API takes its tokens by
naming its issuer, and an admin without a key needs a rule that names it."""

from __future__ import annotations

from typing import Any

import pytest

from specbridge import ConfigError
from specbridge.config import ClaimRule, Config, config_from_data, first_match

FRONT = "https://mcp.example.com"


def load(
    front: dict[str, Any] | None = None, *, store_key: bool = True, admins: Any = None, **api_oauth: Any
) -> Config:
    oauth = {"issuer": FRONT, **api_oauth}
    data: dict[str, Any] = {
        "apis": {"shop": {"spec": "/a.yaml", "base_url": "https://api.example.com", "oauth": oauth}},
        "clients": {"alice": {"apis": ["shop"]}},
        "oauth_server": {
            "issuer": FRONT,
            "upstream": {"issuer": "https://login.example.com", "client_id": "specbridge"},
            "users": [{"claim": "email", "value": "alice@example.com", "client": "alice"}],
            **(front or {}),
        },
    }
    if store_key:
        data["store_key"] = "env:SPECBRIDGE_STORE_KEY"
    if admins is not None:
        data["admins"] = admins
    return config_from_data(data, source="c.yaml")


def test_an_api_naming_the_fronts_issuer_takes_its_tokens_with_its_key() -> None:
    config = load()
    front, oauth = config.oauth_server, config.apis["shop"].oauth
    assert front is not None and oauth is not None
    assert oauth.front and oauth.front_key == config.store_key and oauth.jwks_uri is None
    assert front.upstream.scopes == ("openid", "email", "profile")
    assert (front.metadata_documents, front.dynamic_registration, front.access_token_ttl) == (
        True,
        False,
        300.0,
    )


@pytest.mark.parametrize(
    ("front", "options", "where"),
    [
        ({"issuer": "https://mcp.example.com/sub"}, {}, "oauth_server.issuer"),
        ({}, {"store_key": False}, "store_key"),
        ({"upstream": {"issuer": "http://login.example.com", "client_id": "s"}}, {}, "oauth_server.upstream.issuer"),
        ({"upstream": {"issuer": "https://login.example.com", "client_id": "s", "scopes": ["email"]}}, {},
         "oauth_server.upstream.scopes"),
        ({"users": [{"claim": "email", "value": "a@b.c", "client": "nobody"}]}, {}, "oauth_server.users[0].client"),
        ({"users": [{"claim": "email", "value": "a", "pattern": "*", "client": "alice"}]}, {}, "oauth_server.users[0]"),
        ({"access_token_ttl": "2h"}, {}, "oauth_server.access_token_ttl"),
        ({}, {"jwks_uri": "https://mcp.example.com/jwks"}, "apis.shop.oauth.issuer"),
        ({}, {"admins": {"ops": {}}}, "admins.ops.key_sha256"),
    ],
)  # fmt: skip
def test_what_the_front_cannot_take_names_its_key(
    front: dict[str, Any], options: dict[str, Any], where: str
) -> None:
    with pytest.raises(ConfigError) as refused:
        load(front, **options)
    assert refused.value.key == where


def test_an_admin_without_a_key_is_one_a_rule_names() -> None:
    config = load({"admins": [{"claim": "groups", "value": "ops", "admin": "ops"}]}, admins={"ops": {}})
    assert config.admins["ops"].key_sha256 == ""
    with pytest.raises(ConfigError) as refused:
        config_from_data({"apis": {}, "admins": {"ops": {}}}, source="c.yaml")
    assert refused.value.key == "admins.ops.key_sha256"


def test_rules_match_a_value_a_list_member_or_a_pattern_and_never_an_unverified_address() -> None:
    rules = (
        ClaimRule("email", "alice", value="alice@example.com"),
        ClaimRule("groups", "support", value="support"),
        ClaimRule("email", "staff", pattern="*@example.com"),
    )
    assert first_match(rules, {"email": "alice@example.com"}) == "alice"
    assert first_match(rules, {"email": "bob@example.com", "groups": ["ops", "support"]}) == "support"
    assert first_match(rules, {"email": "bob@example.com"}) == "staff"
    assert first_match(rules, {"email": "alice@example.com", "email_verified": False}) is None
    assert first_match(rules, {"email": "eve@elsewhere.example", "groups": "support-ish"}) is None
