"""`apis.<name>.auth` of an `oauth2_*` type as frozen settings: the OAuth 2 grant by which the gateway
gets the token it sends to the API (`grants/` fetches, keeps and renews it)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ._secrets import Secret

GrantType = Literal["client_credentials", "refresh_token", "authorization_code"]
# `auth.type` -> the grant it names
GRANT_TYPES: dict[str, GrantType] = {
    "oauth2_client_credentials": "client_credentials",
    "oauth2_refresh_token": "refresh_token",
    "oauth2_authorization_code": "authorization_code",
}
CALLBACK_PATH = "/oauth/callback/"  # + the API's name: where the authorization server sends a person back


@dataclass(frozen=True, slots=True)
class GrantConfig:
    """How the gateway gets the API's access token (RFC 6749), sent as `Authorization: Bearer`:

    - `client_credentials`: the gateway's own token, from `client_id` and `client_secret`;
    - `refresh_token`: the gateway's own token, from a refresh token (a rotated one is kept in the store);
    - `authorization_code`: each client's own account, connected by a person through the API's consent
      page (`authorize_url`, PKCE) and back at `redirect_uri` (`/oauth/callback/<api>` on the gateway).

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

    @property
    def per_client(self) -> bool:
        """Each client connects its own account; a client's token is never used for another."""
        return self.grant == "authorization_code"

    def secrets(self) -> list[tuple[str, Secret]]:
        """(key under `auth`, or `store_key`) for every secret the grant reads."""
        found = [("client_secret", self.client_secret), ("refresh_token", self.refresh_token)]
        named = [(key, secret) for key, secret in found if secret is not None]
        return named + ([("store_key", self.store_key)] if self.store_key is not None else [])
