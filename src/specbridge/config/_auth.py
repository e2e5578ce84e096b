"""Reading `apis.<name>.auth` (what the schema cannot say) and the top-level `store_key`.

The static types take a `secret` (or per-client `secrets`); the `oauth2_*` types take the settings of
their grant instead (`config/_grant.py`), each type its own keys. The token endpoint is fetched by the
gateway through the API's egress policy, so it is checked here the way `base_url` is (a private or
internal host needs `egress.allow`), and it must be `https://` except on a host listed there: what it
answers is the credential every call carries. The authorization endpoint and `redirect_uri` are opened
by a person's browser, not fetched: `https://`, or `http://` on loopback or a listed host.
A config with any `oauth2_*` API needs `store_key`, which seals the tokens kept in the store.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from .._errors import ConfigError, RequestRefused
from .._network import base_url_host, check_base_url, is_allowed, parse_allow
from ._grant import CALLBACK_PATH, GRANT_TYPES, TOKEN_TYPES, GrantConfig, GrantType
from ._model import ApiConfig, AuthConfig, EgressConfig
from ._secrets import Secret, secret_reference

Fail = Callable[[list[str | int], str], ConfigError]
GRANT_KEYS: tuple[str, ...] = ("token_url", "client_id", "client_secret", "scopes", "audience")
GRANT_KEYS += ("refresh_token", "authorize_url", "redirect_uri", "per_client", "resource")
GRANT_KEYS += (
    "subject_token_type",
    "assertion_key",
    "assertion_issuer",
    "assertion_audience",
    "assertion_key_id",
)
# Per grant: the keys it needs, and those it may take.
NEEDED: dict[GrantType, tuple[str, ...]] = {
    "client_credentials": ("token_url", "client_id", "client_secret"),
    "refresh_token": ("token_url", "client_id", "refresh_token"),
    "authorization_code": ("authorize_url", "token_url", "client_id", "scopes", "per_client", "redirect_uri"),
    "token_exchange": ("token_url", "client_id"),
    "jwt_bearer": ("token_url", "client_id", "assertion_key"),
}
OPTIONAL: dict[GrantType, tuple[str, ...]] = {
    "client_credentials": ("scopes", "audience"),
    "refresh_token": ("client_secret", "scopes"),
    "authorization_code": ("client_secret",),
    "token_exchange": ("client_secret", "scopes", "audience", "resource", "subject_token_type"),
    "jwt_bearer": ("client_secret", "scopes", "assertion_issuer", "assertion_audience", "assertion_key_id"),
}
LOOPBACK = ("127.0.0.1", "localhost", "::1")
MIN_STORE_KEY = 32  # characters of the store key (`openssl rand -base64 32` gives 44)


def read_auth(
    raw: Mapping[str, Any], key: list[str | int], fail: Fail, base_dir: Path, egress: EgressConfig
) -> AuthConfig:
    """`apis.<name>.auth` as the model; `key` is its key path (`["apis", name, "auth"]`)."""
    if not raw:
        return AuthConfig()
    kind = raw.get("type", "none")
    grant = GRANT_TYPES.get(kind)
    if grant is not None:
        return AuthConfig(type=kind, grant=_grant(grant, kind, raw, key, fail, base_dir, egress))
    for name in GRANT_KEYS:
        if name in raw:
            raise fail([*key, name], "is only used with the oauth2_* types, not " + kind)
    name = raw.get("name", "")
    if kind in ("header", "query", "cookie"):
        if not name.strip():
            raise fail([*key, "name"], f"type {kind} needs a non-empty name")
        name = name.strip()
    elif name:
        raise fail([*key, "name"], f"is only used with type header, query or cookie, not {kind}")
    secrets = {sid: secret_reference(ref, base_dir) for sid, ref in (raw.get("secrets") or {}).items()}
    given = raw.get("secret")
    secret = secret_reference(given, base_dir) if given is not None else None
    if kind != "none" and secret is None and not secrets:
        raise fail([*key, "secret"], f"type {kind} needs a secret (`env:NAME` or `file:PATH`)")
    return AuthConfig(type=kind, name=name, secret=secret, secrets=secrets)


def _grant(
    grant: GrantType,
    kind: str,
    raw: Mapping[str, Any],
    key: list[str | int],
    fail: Fail,
    base_dir: Path,
    egress: EgressConfig,
) -> GrantConfig:
    for name in ("name", "secret", "secrets"):
        if name in raw:
            raise fail([*key, name], f"is not used with type {kind}: the gateway fetches the token itself")
    for name in GRANT_KEYS:
        if name in raw and name not in NEEDED[grant] + OPTIONAL[grant]:
            raise fail([*key, name], f"is not used with type {kind}")
    for name in NEEDED[grant]:
        if raw.get(name) is None:
            raise fail([*key, name], f"is needed with type {kind}")
    allow = [parse_allow(entry) for entry in egress.allow]

    def secret(name: str) -> Secret | None:
        value = raw.get(name)
        return None if value is None else secret_reference(value, base_dir)

    scopes = tuple(dict.fromkeys(raw.get("scopes") or ()))
    if grant == "authorization_code" and not scopes:
        raise fail([*key, "scopes"], "must name at least one scope to ask each person for")
    return GrantConfig(
        grant=grant,
        token_url=server_url(
            raw["token_url"],
            allow,
            [*key, "token_url"],
            fail,
            trusted="what it answers is the credential every call carries",
        ),
        client_id=raw["client_id"].strip(),
        client_secret=secret("client_secret"),
        scopes=scopes,
        audience=(raw.get("audience") or "").strip() or None,
        refresh_token=secret("refresh_token"),
        authorize_url=_browser_url(raw.get("authorize_url"), allow, [*key, "authorize_url"], fail),
        redirect_uri=_redirect_uri(raw.get("redirect_uri"), str(key[1]), allow, [*key, "redirect_uri"], fail),
        resource=_plain(raw.get("resource")),
        subject_token_type=TOKEN_TYPES[raw.get("subject_token_type") or "access_token"],
        assertion_key=secret("assertion_key"),
        assertion_issuer=_plain(raw.get("assertion_issuer")),
        assertion_audience=_plain(raw.get("assertion_audience")),
        assertion_key_id=_plain(raw.get("assertion_key_id")),
    )


def _plain(value: str | None) -> str | None:
    return (value or "").strip() or None


def server_url(url: str, allow: list[Any], key: list[str | int], fail: Fail, *, trusted: str) -> str:
    """The URL of a server the gateway itself asks (a token endpoint, an issuer, an introspection or JWKS
    endpoint): a public address or one under egress.allow, and https:// unless its host is listed there.
    `trusted`: what rides on its answers, for the message."""
    url = url.strip()
    try:
        check_base_url(url, allow)
        host, port = base_url_host(url)
    except RequestRefused as error:
        message = error.message.replace("the base URL", "this URL")
        raise fail(key, f"{message} (list the host:port under the API's egress.allow)") from None
    if urlsplit(url).scheme != "https" and not is_allowed(allow, host, port):
        raise fail(
            key,
            f"must be an https:// URL: {trusted} (http:// only for a host listed under the API's egress.allow)",
        )
    return url


def _browser_url(url: str | None, allow: list[Any], key: list[str | int], fail: Fail) -> str | None:
    """A URL a person's browser opens: https://, or http:// on loopback or a host under egress.allow."""
    if url is None:
        return None
    url = url.strip()
    parts = urlsplit(url)
    if not parts.hostname or parts.username is not None or parts.fragment:
        raise fail(key, "must be an absolute http(s) URL without user name or fragment")
    if parts.scheme != "https" and parts.hostname not in LOOPBACK:
        try:
            host, port = base_url_host(url)
        except RequestRefused as error:
            raise fail(key, error.message.replace("the base URL", "this URL")) from None
        if not is_allowed(allow, host, port):
            raise fail(key, "must be an https:// URL (http:// only on loopback or a host under egress.allow)")
    return url


def _redirect_uri(
    url: str | None, api: str, allow: list[Any], key: list[str | int], fail: Fail
) -> str | None:
    found = _browser_url(url, allow, key, fail)
    if found is not None:
        parts = urlsplit(found)
        if parts.query or not parts.path.endswith(CALLBACK_PATH + api):
            raise fail(
                key,
                f"must be this gateway's callback: its public address followed by {CALLBACK_PATH}{api} "
                "(no query), registered as a redirect URI at the authorization server",
            )
    return found


def with_store_key(
    raw: Any, apis: Mapping[str, ApiConfig], fail: Fail, base_dir: Path
) -> tuple[dict[str, ApiConfig], Secret | None]:
    """The top-level `store_key`, and every API whose grant keeps tokens in the store with it in its
    grant; a config with such an API and no `store_key` is refused."""
    store_key = None if raw is None else secret_reference(raw, base_dir)
    found = dict(apis)
    for name, api in apis.items():
        grant = api.auth.grant
        if grant is None:
            continue
        if store_key is None:
            raise fail(
                ["store_key"],
                f"is needed: apis.{name}.auth ({api.auth.type}) keeps its tokens in the store, sealed with "
                f"this key; set `store_key: env:NAME` (at least {MIN_STORE_KEY} random characters, e.g. "
                "from `openssl rand -base64 32`)",
            )
        found[name] = replace(api, auth=replace(api.auth, grant=replace(grant, store_key=store_key)))
    return found, store_key
