"""OAuth 2 toward the APIs (PRODUCT §5.2), free of MCP: the token a call of an API with an `oauth2_*`
`auth.type` sends — fetched by client credentials or a refresh token and shared by every instance on
the store, or each client's own account connected through the API's consent page — kept in the store
sealed with `store_key`, and fetched through the API's egress policy. The call service asks for it
before a call's claim (`Grants.credential`); the gateway serves the connect pages (`connect_routes`).

Modules:

- `_grants`: `Grants`, the token a call of an `oauth2_*` API sends, had before the call's claim, and its
  renewal after a 401.
- `_grant`: one class per grant: where its token is kept, how it is fetched, what a call is told without
  one.
- `_shared`: the API's own token, one for every client, call and instance.
- `_account`, `_connect`: each client's own account, connected by a person through the API's consent
  page (PKCE).
- `_person`: each signed-in person's own token (token exchange, JWT bearer).
- `_keeper`: `Keeper`, one token per slot, kept in the store and fetched by one caller per process and
  one instance per store.
- `_endpoint`: the token endpoint asked through the API's egress policy, bounded.
- `_tokens`: `Tokens`, an answer read, used until shortly before it expires.
- `_seal`: AES-256-GCM under a key derived from `store_key`, each record bound to its store key.
- `_slots`: where each thing lives in the store.
- `_routes`, `_pages`: the connect pages (Starlette) and what they say.
- `_results`: `Fetched`, the renewable credential; the refusal of a client with no account.
"""

from __future__ import annotations

from ._connect import ConnectError as ConnectError
from ._connect import Connections as Connections
from ._endpoint import GrantError as GrantError
from ._grants import Grants as Grants
from ._results import AccountNotConnected as AccountNotConnected
from ._results import Fetched as Fetched
from ._routes import connect_routes as connect_routes
from ._seal import Sealer as Sealer
from ._seal import Unreadable as Unreadable
from ._seal import sealer_of as sealer_of
