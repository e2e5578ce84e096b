"""`oauth_server:` as frozen settings: the gateway's own OAuth 2.1 authorization server (the "front",
`specbridge.front`), which signs people in at the company's OpenID Connect provider and issues the
tokens its APIs take (an API takes them by naming the front's issuer in `apis.<name>.oauth.issuer`)."""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ._secrets import Secret

DEFAULT_UPSTREAM_SCOPES = ("openid", "email", "profile")
SIGNIN_CALLBACK = "/oauth/signin/callback"  # where the upstream provider sends a person back


@dataclass(frozen=True, slots=True)
class ClaimRule:
    """One entry of `oauth_server.users` (or `admins`): a person whose ID token's `claim` is `value`
    (or holds it, for a list such as `groups`), or matches the glob `pattern`, is `target`
    (`clients.<id>`, or `admins.<id>`)."""

    claim: str
    target: str
    value: str | None = None
    pattern: str | None = None

    def matches(self, claims: Mapping[str, Any]) -> bool:
        found = claims.get(self.claim)
        if self.claim == "email" and claims.get("email_verified") is False:
            return False  # an address the provider says it has not verified names nobody
        values = found if isinstance(found, list) else [found]
        for item in values:
            if not isinstance(item, str) or not item:
                continue
            if self.value is not None and item == self.value:
                return True
            if self.pattern is not None and fnmatch.fnmatchcase(item, self.pattern):
                return True
        return False


def first_match(rules: tuple[ClaimRule, ...], claims: Mapping[str, Any]) -> str | None:
    """The target of the first rule `claims` match (None: the person is nobody the operator named)."""
    return next((rule.target for rule in rules if rule.matches(claims)), None)


@dataclass(frozen=True, slots=True)
class UpstreamConfig:
    """`oauth_server.upstream`: the OpenID Connect provider people sign in at (found by discovery)."""

    issuer: str
    client_id: str
    client_secret: Secret | None = None
    scopes: tuple[str, ...] = DEFAULT_UPSTREAM_SCOPES


@dataclass(frozen=True, slots=True)
class OAuthServerConfig:
    """`oauth_server:` (see docs/configuration.md). `store_key` seals what the front keeps in the store
    and derives the key its tokens are signed with, so every instance on one store (with one key)
    issues and checks the same tokens."""

    issuer: str
    upstream: UpstreamConfig
    users: tuple[ClaimRule, ...] = ()
    admins: tuple[ClaimRule, ...] = ()
    metadata_documents: bool = True
    dynamic_registration: bool = False
    registrations_per_hour: int = 20
    access_token_ttl: float = 300.0
    refresh_token_ttl: float = 30 * 86400.0
    allow: tuple[str, ...] = ()  # `oauth_server.egress.allow`: the provider's and CIMD hosts' exceptions
    store_key: Secret | None = None

    @property
    def signin_callback(self) -> str:
        return self.issuer + SIGNIN_CALLBACK
