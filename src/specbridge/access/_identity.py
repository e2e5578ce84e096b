"""Who a request to an MCP endpoint comes from, once it is let in."""

from __future__ import annotations

from dataclasses import dataclass

from ..config import ClientConfig
from ._claims import TokenClaims


@dataclass(frozen=True, slots=True)
class Identity:
    """`client`: the config's client, whose bindings, per-client secrets and other settings apply (None:
    the API's defaults, for a token of no known client under `oauth.allow_unknown_clients`). `name`:
    what sessions, logs and counters call the caller: the client's id, or `oauth:<client_id or sub>`.
    `token`: the claims of the access token it came with (None for a client key); its `scopes` are what
    a later step may narrow tools by."""

    client: ClientConfig | None
    name: str
    token: TokenClaims | None = None

    @property
    def scopes(self) -> frozenset[str]:
        return self.token.scopes if self.token is not None else frozenset()
