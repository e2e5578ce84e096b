"""Each client's own account of the API (`authorization_code`, `per_client: true`): connected by a
person through the API's consent page (`_connect`), renewed with its refresh token; a client with no
account is handed a connect link, and an account whose refresh token is refused is forgotten, so the
client is asked to connect it again. One client's account is only ever read under that client's key
(and a record moved under another key does not open: `_seal`)."""

from __future__ import annotations

from .._errors import ErrorCode
from .._logging import log_event
from ..call import CallResult
from ..store import Store
from ._connect import Connections
from ._endpoint import GrantError
from ._grant import Gone, Grant, Need, Tools
from ._slots import account_slot
from ._tokens import Tokens


class AuthorizationCode(Grant):
    type = grant_type = "authorization_code"
    fetches_missing = False

    def __init__(self, tools: Tools, connections: Connections) -> None:
        super().__init__(tools)
        self.connections = connections

    def slot(self, need: Need) -> str | CallResult:
        if need.client is None:
            return CallResult(
                f"{need.api.name} connects each client's own account, and this call comes from no client "
                "(serve it with client keys, or with --client on stdio); nothing was sent",
                is_error=True,
                code=ErrorCode.ACCOUNT_NOT_CONNECTED,
            )
        return account_slot(need.api, need.client)

    async def fetch(self, need: Need, store: Store, slot: str, stored: Tokens | None) -> Tokens:
        if stored is not None and stored.refresh is not None:
            form = {"grant_type": "refresh_token", "refresh_token": stored.refresh}
            try:
                return await self.ask(need, form, stored.refresh)
            except GrantError as error:
                if not error.refused:
                    raise
        await store.take_sealed(slot, self.tools.clock())
        self.tools.forget(slot)
        log_event("a client's account can no longer be renewed; it is asked to connect again",
                  api=need.api.name, client=need.client)  # fmt: skip
        raise Gone()

    async def missing(self, need: Need) -> CallResult:
        assert need.client is not None  # `slot` refused a call of no client
        return await self.connections.link(need.api, need.client)
