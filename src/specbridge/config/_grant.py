"""`apis.<name>.auth` of an `oauth2_*` type as frozen settings: the OAuth 2 grant by which the gateway
gets the token it sends to the API (`grants/` fetches, keeps and renews it)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ._secrets import Secret

GrantType = Literal[
    "client_credentials", "refresh_token", "authorization_code", "token_exchange", "jwt_bearer"
]
# `auth.type` -> the grant it names
GRANT_TYPES: dict[str, GrantType] = {
    "oauth2_client_credentials": "client_credentials",
    "oauth2_refresh_token": "refresh_token",
    "oauth2_authorization_code": "authorization_code",
    "oauth2_token_exchange": "token_exchange",
    "oauth2_jwt_bearer": "jwt_bearer",
}
# `auth.subject_token_type` (RFC 8693 §3) -> the URI the exchange names
TOKEN_TYPES = {
    "access_token": "urn:ietf:params:oauth:token-type:access_token",
    "jwt": "urn:ietf:params:oauth:token-type:jwt",
}
CALLBACK_PATH = "/oauth/callback/"  # + the API's name: where the authorization server sends a person back


@dataclass(frozen=True, slots=True)
class GrantConfig:
    """How the gateway gets the API's access token (RFC 6749), sent as `Authorization: Bearer`:

    - `client_credentials`: the gateway's own token, from `client_id` and `client_secret`;
    - `refresh_token`: the gateway's own token, from a refresh token (a rotated one is kept in the store);
    - `authorization_code`: each client's own account, connected by a person through the API's consent
      page (`authorize_url`, PKCE) and back at `redirect_uri` (`/oauth/callback/<api>` on the gateway);
    - `token_exchange` (RFC 8693): each signed-in person's own token, had by exchanging the access token
      the MCP client signed in with (`subject_token_type`) for one of the API (`audience`, `resource`,
      `scopes`); that token goes to the token endpoint only, never to the API;
    - `jwt_bearer` (RFC 7523): each signed-in person's own token, had with an assertion the gateway
      signs (`assertion_key`, a PEM private key; `iss` = `assertion_issuer` or the client id, `sub` =
      the person's subject, `aud` = `assertion_audience` or the token endpoint).

    Tokens are kept in the store sealed with `store_key` (the config's top-level key, put here by the
    reader so everything a grant needs travels with the API)."""

    grant: GrantType
    token_url: str
    client_id: str
    client_secret: Secret | None = None
    scopes: tuple[str, ...] = ()
    audience: str | None = None
    refresh_token: Secret | None = None
    authorize_url: str | None = None
    redirect_uri: str | None = None
    store_key: Secret | None = None
    resource: str | None = None  # token_exchange: RFC 8707's `resource` of the token asked for
    subject_token_type: str = TOKEN_TYPES["access_token"]
    assertion_key: Secret | None = None  # jwt_bearer: the PEM private key the assertion is signed with
    assertion_issuer: str | None = None
    assertion_audience: str | None = None
    assertion_key_id: str | None = None

    @property
    def per_client(self) -> bool:
        """Each client connects its own account; a client's token is never used for another."""
        return self.grant == "authorization_code"

    @property
    def per_person(self) -> bool:
        """Each signed-in person has a token of their own (never another person's, never a client's)."""
        return self.grant in ("token_exchange", "jwt_bearer")

    def secrets(self) -> list[tuple[str, Secret]]:
        """(key under `auth`, or `store_key`) for every secret the grant reads."""
        found = [("client_secret", self.client_secret), ("refresh_token", self.refresh_token)]
        found.append(("assertion_key", self.assertion_key))
        named = [(key, secret) for key, secret in found if secret is not None]
        return named + ([("store_key", self.store_key)] if self.store_key is not None else [])
