"""Reading `oauth_server:` (what the schema cannot say): its issuer is this gateway's public origin;
the upstream provider's issuer is a server the gateway asks (discovery, JWKS, token endpoint), checked
as `oauth.issuer` is against `oauth_server.egress`; each rule names a client or admin that exists; and
the front needs `store_key` (it seals what it keeps and signs its tokens with a key derived from it)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from .._errors import ConfigError
from .._network import parse_allow
from ._auth import server_url
from ._front import DEFAULT_UPSTREAM_SCOPES, ClaimRule, OAuthServerConfig, UpstreamConfig
from ._model import AdminConfig, ApiConfig, ClientConfig
from ._secrets import Secret, secret_reference

Fail = Callable[[list[str | int], str], ConfigError]
Duration = Callable[[Any], float]


def front_issuer(top: Mapping[str, Any]) -> str | None:
    """The front's issuer as written (None without `oauth_server:`), for reading the APIs' `oauth`."""
    raw = top.get("oauth_server")
    return raw["issuer"].strip().rstrip("/") if isinstance(raw, Mapping) and raw.get("issuer") else None


def read_oauth_server(
    raw: Mapping[str, Any] | None,
    *,
    apis: Mapping[str, ApiConfig],
    clients: Mapping[str, ClientConfig],
    admins: Mapping[str, AdminConfig],
    store_key: Secret | None,
    duration: Duration,
    fail: Fail,
    base_dir: Path,
) -> tuple[OAuthServerConfig | None, dict[str, ApiConfig]]:
    """The front's settings, and the APIs whose `oauth.issuer` names it with its `store_key`."""
    if raw is None:
        keyless = next((admin for admin in admins.values() if not admin.key_sha256), None)
        if keyless is not None:
            raise fail(
                ["admins", keyless.id, "key_sha256"],
                "is missing, and without `oauth_server.admins` this admin could never sign in",
            )
        return None, dict(apis)
    key: list[str | int] = ["oauth_server"]
    issuer = raw["issuer"].strip().rstrip("/")
    parts = urlsplit(issuer)
    if parts.path or parts.query or parts.fragment or parts.username is not None or not parts.hostname:
        raise fail(
            [*key, "issuer"], "must be this gateway's public origin, e.g. https://mcp.example.com (no path)"
        )
    if store_key is None:
        raise fail(
            ["store_key"], "is needed with `oauth_server`: it seals what the front keeps and signs its tokens"
        )
    allow = tuple((raw.get("egress") or {}).get("allow") or ())
    entries = [parse_allow(entry) for entry in allow]
    given = raw["upstream"]
    upstream = UpstreamConfig(
        issuer=server_url(
            given["issuer"],
            entries,
            [*key, "upstream", "issuer"],
            fail,
            trusted="who signs in is what its answers say",
        ).rstrip("/"),
        client_id=given["client_id"].strip(),
        client_secret=secret_reference(given["client_secret"], base_dir)
        if given.get("client_secret")
        else None,
        scopes=tuple(dict.fromkeys(given.get("scopes") or DEFAULT_UPSTREAM_SCOPES)),
    )
    if "openid" not in upstream.scopes:
        raise fail([*key, "upstream", "scopes"], "must include `openid`: people sign in with OpenID Connect")
    registration = raw.get("registration") or {}
    found = OAuthServerConfig(
        issuer=issuer,
        upstream=upstream,
        users=_rules(raw.get("users") or [], "client", clients, [*key, "users"], fail),
        admins=_rules(raw.get("admins") or [], "admin", admins, [*key, "admins"], fail),
        metadata_documents=registration.get("metadata_documents", True),
        dynamic_registration=registration.get("dynamic", False),
        registrations_per_hour=int(registration.get("dynamic_per_hour", 20)),
        access_token_ttl=duration(raw.get("access_token_ttl", 300)),
        refresh_token_ttl=duration(raw.get("refresh_token_ttl", "30d")),
        allow=allow,
        store_key=store_key,
    )
    named = {rule.target for rule in found.admins}
    keyless = next(
        (admin for admin in admins.values() if not admin.key_sha256 and admin.id not in named), None
    )
    if keyless is not None:
        raise fail(
            ["admins", keyless.id, "key_sha256"],
            "is missing, and no rule of `oauth_server.admins` names this admin",
        )
    if found.access_token_ttl > 3600:
        raise fail([*key, "access_token_ttl"], "must be at most an hour: access tokens are short-lived")
    served = {
        name: replace(api, oauth=replace(api.oauth, front_key=store_key))
        if api.oauth is not None and api.oauth.front
        else api
        for name, api in apis.items()
    }
    return found, served


def _rules(
    raw: list[Mapping[str, Any]], target: str, known: Mapping[str, Any], key: list[str | int], fail: Fail
) -> tuple[ClaimRule, ...]:
    rules = []
    where = "clients" if target == "client" else "admins"
    for index, entry in enumerate(raw):
        name = entry[target]
        if name not in known:
            raise fail([*key, index, target], f"names no `{where}.<id>` of this config")
        if (entry.get("value") is None) == (entry.get("pattern") is None):
            raise fail([*key, index], "needs exactly one of `value` and `pattern`")
        rules.append(ClaimRule(entry["claim"], name, entry.get("value"), entry.get("pattern")))
    return tuple(rules)
