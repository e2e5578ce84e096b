"""`Grants`: OAuth 2 toward the APIs for one gateway (PRODUCT §5.2) — the token a call of an
`oauth2_*` API sends, had before the call's claim (so it never makes an outcome unknown):

    credential = await grants.credential(api, client, identity)   # a `Fetched` credential, or a refusal
    fresh = await credential.renew()                                # after a 401: another token, or None

Each grant is one class (`_grant`): `client_credentials` and `refresh_token` (`_shared`: the API's one
token, shared by every client, call and instance), `authorization_code` (`_account`: each client's own
account, connected through the API's consent page), `token_exchange` and `jwt_bearer` (`_person`: each
signed-in person's own token). Every one is had the same way here: remembered, else stored, else
fetched once (`_keeper`), and fetched anew once after the API answered 401 to it.

A token endpoint that fails gives `upstream-auth-failed` (naming its status); a `store_key` or secret
that cannot be read, `secret-unavailable`; the store failing, `store-unavailable`: each before anything
is sent.
"""

from __future__ import annotations

import functools
import logging
import secrets
import time
from collections.abc import Awaitable, Callable

import httpx

from .._errors import CallError
from .._logging import log_event
from ..access import Identity
from ..call import CallResult, Credential
from ..config import ApiConfig
from ..store import Store, StoreError
from ._account import AuthorizationCode
from ._connect import Connections, keep_account
from ._endpoint import Resolve, TokenEndpoint
from ._grant import Gone, Grant, Need, Tools
from ._keeper import Held, Keeper
from ._person import JwtBearer, TokenExchange
from ._results import Fetched
from ._seal import sealer_for
from ._shared import ClientCredentials, RefreshToken
from ._slots import grant_of


class Grants:
    def __init__(
        self,
        store: Callable[[], Awaitable[Store]],
        *,
        clock: Callable[[], float] = time.time,
        transport: httpx.AsyncBaseTransport | None = None,
        resolve: Resolve | None = None,
    ) -> None:
        """`store`: opens (once) and hands out the gateway's store. `transport`/`resolve`: as for the
        API's `Caller` (tests); the egress policy applies either way."""
        self.clock = clock
        self._store = store
        self._transport, self._resolve = transport, resolve
        self.keeper = Keeper(secrets.token_hex(8), lambda: self.clock())
        self._endpoints: dict[tuple[str, ...], TokenEndpoint] = {}
        self.connections = Connections(store, self.keeper, self.endpoint, lambda: self.clock())
        tools = Tools(self.endpoint, lambda: self.clock(), self.keeper.forget)
        kinds: list[Grant] = [ClientCredentials(tools), RefreshToken(tools), TokenExchange(tools)]
        kinds += [JwtBearer(tools), AuthorizationCode(tools, self.connections)]
        self._kinds: dict[str, Grant] = {kind.type: kind for kind in kinds}

    def endpoint(self, api: ApiConfig) -> TokenEndpoint:
        """The HTTP client for `api`'s token endpoint (one per set of egress exceptions)."""
        allow = api.egress.allow
        found = self._endpoints.get(allow)
        if found is None:
            found = TokenEndpoint(allow, transport=self._transport, resolve=self._resolve)
            self._endpoints[allow] = found
        return found

    @property
    def requests(self) -> int:
        """Token requests this gateway sent (every grant, every API)."""
        return sum(endpoint.requests for endpoint in self._endpoints.values())

    def kind(self, api: ApiConfig) -> Grant:
        """The class that has `api`'s token (by its `auth.type`)."""
        return self._kinds[grant_of(api).grant]

    async def credential(
        self, api: ApiConfig, client: str | None, identity: Identity | None = None
    ) -> Credential | CallResult:
        """The token this call of `api` by `client` (let in as `identity`) sends, or the refusal
        (nothing sent): raises CallError (`upstream-auth-failed`, `secret-unavailable`) and StoreError."""
        need = Need(api, client, identity)
        kind = self.kind(api)
        slot = kind.slot(need)
        if isinstance(slot, CallResult):
            return slot
        try:
            held = await self._held(need, kind, slot, None)
        except Gone:
            held = None
        if held is None:
            return await kind.missing(need)
        return self._credential(need, slot, held)

    async def _held(self, need: Need, kind: Grant, slot: str, stale: bytes | None) -> Held | None:
        store = await self._store()
        return await self.keeper.held(
            store,
            functools.partial(sealer_for, need.grant),
            slot,
            functools.partial(kind.fetch, need, store, slot),
            keep=keep_account,
            stale=stale,
            missing=kind.fetches_missing,
        )

    def _credential(self, need: Need, slot: str, held: Held) -> Fetched:
        renew = functools.partial(self._renew, need, slot, held.blob)
        return Fetched("bearer", "", held.tokens.access, renew=renew)

    async def _renew(self, need: Need, slot: str, stale: bytes) -> Credential | None:
        """After the API answered 401 to the token in `stale`: another one, or None (the call keeps its
        401; an account that cannot be renewed is forgotten, so the next call asks to connect it)."""
        api, client = need.api, need.client
        try:
            held = await self._held(need, self.kind(api), slot, stale)
        except Gone:
            return None
        except (CallError, StoreError) as error:
            log_event("the API refused its token, and no other could be had", level=logging.WARNING,
                      api=api.name, client=client, code=str(error.code), reason=error.message)  # fmt: skip
            return None
        if held is None:
            return None
        log_event("the API refused its token (401): another was had, and the call is sent once more",
                  api=api.name, client=client)  # fmt: skip
        return self._credential(need, slot, held)

    async def aclose(self) -> None:
        await self.keeper.aclose()
        for endpoint in self._endpoints.values():
            await endpoint.aclose()
