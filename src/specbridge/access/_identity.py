"""Who a request to the gateway comes from, once it is let in (`_admission`): one value for every
route, whatever the credential was."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from ..config import AdminConfig, ClientConfig
from ._claims import TokenClaims

# How the request was let in: a client key, an OAuth access token, an admin key or an admin page's
# session, or nothing at all (a config that asks no credential of this route: loopback without keys).
Via = Literal["key", "token", "admin-key", "admin-session", "open"]


class Presented:
    """The bearer token a request came with, held only while the request lasts, for the one use the
    gateway makes of it besides checking it: exchanging it at an API's token endpoint (RFC 8693,
    `oauth2_token_exchange`). It never shows in a repr, a log line or an error, and is never sent to an
    API itself."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Presented(…)"


@dataclass(frozen=True, slots=True)
class Identity:
    """`client`: the config's client, whose bindings, per-client secrets and other settings apply (None:
    the API's defaults, for a token of no known client under `oauth.allow_unknown_clients`, or nobody).
    `name`: what sessions, logs and counters call the caller: the client's id, or `oauth:<client_id or
    sub>`; "" for nobody. `token`: the claims of the access token it came with (None otherwise); its
    `scopes` are what a later step may narrow tools by. `admin`: the admin a request of the admin API or
    page acts as. `presented`: the token itself, for an exchange (see `Presented`)."""

    client: ClientConfig | None
    name: str
    token: TokenClaims | None = None
    via: Via = "key"
    admin: AdminConfig | None = None
    presented: Presented | None = field(default=None, repr=False, compare=False)

    @property
    def scopes(self) -> frozenset[str]:
        return self.token.scopes if self.token is not None else frozenset()

    @property
    def person(self) -> str | None:
        """Whom a per-person token toward an API is had for: the token's issuer and subject (a client
        key or an open route names no person)."""
        token = self.token
        if token is None or token.subject is None:
            return None
        return f"{token.issuer}\0{token.subject}"


NOBODY = Identity(None, "", via="open")  # a route that asks no credential (loopback, no keys)
