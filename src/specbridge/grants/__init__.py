"""OAuth 2 toward the APIs (PRODUCT §5.2), free of MCP: the token a call of an API with an `oauth2_*`
`auth.type` sends — fetched by client credentials or a refresh token and shared by every instance on
the store, or each client's own account connected through the API's consent page — kept in the store
sealed with `store_key`, and fetched through the API's egress policy. The call service asks for it
before a call's claim (`Grants.credential`); the gateway serves the connect pages (`connect_routes`)."""

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
