"""`Grants`: OAuth 2 toward the APIs for one gateway (PRODUCT §5.2) — the token a call of an
`oauth2_*` API sends, had before the call's claim (so it never makes an outcome unknown):

    credential = await grants.credential(api, client)   # a `Fetched` credential, or a refusal result
    fresh = await credential.renew()                      # after a 401: another token, or None

- `client_credentials` and `refresh_token`: the API's one token, shared by every client, call and
  instance (`_keeper`); a rotated refresh token is kept, and when the kept one is refused the
  configured one is tried once (an operator may have put a new one in).
- `authorization_code` (`per_client: true`): each client's own account (`_connect`); a client with none
  gets `account-not-connected` with a connect link; an account whose refresh token is refused is
  forgotten, and the client is asked to connect again. One client's account is only ever read under
  that client's key (and a record moved under another key does not open: `_seal`).

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

from .._errors import CallError, ConfigError, ErrorCode
from .._logging import log_event
from ..call import CallResult, Credential
from ..config import ApiConfig, GrantConfig
from ..store import Store, StoreError
from ._connect import Connections, keep_account
from ._endpoint import GrantError, Resolve, TokenEndpoint
from ._keeper import Fetch, Held, Keeper
from ._results import Fetched
from ._seal import sealer_for
from ._slots import account_slot, grant_of, shared_slot
from ._tokens import Tokens


class _Gone(Exception):
    """The client's account can no longer be used (no refresh token, or it was refused): forgotten."""


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

    async def credential(self, api: ApiConfig, client: str | None) -> Credential | CallResult:
        """The token this call of `api` by `client` sends, or the refusal (nothing sent): raises
        CallError (`upstream-auth-failed`, `secret-unavailable`) and StoreError."""
        grant = grant_of(api)
        sealer = functools.partial(sealer_for, grant)
        store = await self._store()
        if not grant.per_client:
            slot = shared_slot(api)
            held = await self.keeper.held(store, sealer, slot, self._fetch(api, grant), keep=keep_account)
        elif client is None:
            return CallResult(
                f"{api.name} connects each client's own account, and this call comes from no client (serve "
                "it with client keys, or with --client on stdio); nothing was sent",
                is_error=True,
                code=ErrorCode.ACCOUNT_NOT_CONNECTED,
            )
        else:
            slot = account_slot(api, client)
            try:
                held = await self.keeper.held(
                    store,
                    sealer,
                    slot,
                    self._refresh(api, grant, store, slot),
                    keep=keep_account,
                    missing=False,
                )
            except _Gone:
                held = None
            if held is None:
                return await self.connections.link(api, client)
        assert held is not None  # a shared token is fetched when missing
        return self._credential(api, client, held)

    def _credential(self, api: ApiConfig, client: str | None, held: Held) -> Fetched:
        renew = functools.partial(self._renew, api, client, held.blob)
        return Fetched("bearer", "", held.tokens.access, renew=renew)

    async def _renew(self, api: ApiConfig, client: str | None, stale: bytes) -> Credential | None:
        """After the API answered 401 to the token in `stale`: another one, or None (the call keeps its
        401; an account that cannot be renewed is forgotten, so the next call asks to connect it)."""
        grant = grant_of(api)
        try:
            sealer, store = functools.partial(sealer_for, grant), await self._store()
            if grant.per_client and client is not None:
                slot = account_slot(api, client)
                fetch = self._refresh(api, grant, store, slot)
                held = await self.keeper.held(
                    store, sealer, slot, fetch, keep=keep_account, stale=stale, missing=False
                )
            else:
                fetch = self._fetch(api, grant)
                held = await self.keeper.held(
                    store, sealer, shared_slot(api), fetch, keep=keep_account, stale=stale
                )
        except _Gone:
            return None
        except (CallError, StoreError) as error:
            log_event("the API refused its token, and no other could be had", level=logging.WARNING,
                      api=api.name, client=client, code=str(error.code), reason=error.message)  # fmt: skip
            return None
        if held is None:
            return None
        log_event("the API refused its token (401): another was had, and the call is sent once more",
                  api=api.name, client=client)  # fmt: skip
        return self._credential(api, client, held)

    def _fetch(self, api: ApiConfig, grant: GrantConfig) -> Fetch:
        """How the API's own token is fetched: client credentials, or the refresh token (the kept one,
        else the configured one; the configured one once more when the kept one is refused)."""
        endpoint = self.endpoint(api)

        async def fetch(stored: Tokens | None) -> Tokens:
            form: dict[str, str] = {"grant_type": grant.grant}
            if grant.scopes:
                form["scope"] = " ".join(grant.scopes)
            if grant.grant == "client_credentials":
                if grant.audience:
                    form["audience"] = grant.audience
                return await endpoint.ask(grant, form, self.clock())
            configured = _reveal(grant)
            current = stored.refresh if stored is not None and stored.refresh else configured
            try:
                return await endpoint.ask(grant, {**form, "refresh_token": current}, self.clock(), current)
            except GrantError as error:
                if not error.refused or current == configured:
                    raise
            log_event("the kept refresh token was refused; the configured one is tried", api=api.name)
            return await endpoint.ask(grant, {**form, "refresh_token": configured}, self.clock(), configured)

        return fetch

    def _refresh(self, api: ApiConfig, grant: GrantConfig, store: Store, slot: str) -> Fetch:
        """How a client's account is renewed: its refresh token; without one, or refused, it is gone."""
        endpoint = self.endpoint(api)

        async def fetch(stored: Tokens | None) -> Tokens:
            if stored is not None and stored.refresh is not None:
                form = {"grant_type": "refresh_token", "refresh_token": stored.refresh}
                try:
                    return await endpoint.ask(grant, form, self.clock(), stored.refresh)
                except GrantError as error:
                    if not error.refused:
                        raise
            await store.take_sealed(slot, self.clock())
            self.keeper.forget(slot)
            log_event("a client's account can no longer be renewed; it is asked to connect again",
                      api=api.name, client=slot.rpartition(":")[2])  # fmt: skip
            raise _Gone()

        return fetch

    async def aclose(self) -> None:
        await self.keeper.aclose()
        for endpoint in self._endpoints.values():
            await endpoint.aclose()


def _reveal(grant: GrantConfig) -> str:
    if grant.refresh_token is None:  # the reader requires it for this grant
        raise GrantError("no refresh_token is configured")
    try:
        value = grant.refresh_token.reveal()
    except ConfigError:
        raise GrantError("the refresh_token is not available to the gateway") from None
    if not value:
        raise GrantError("the refresh_token is empty")
    return value
