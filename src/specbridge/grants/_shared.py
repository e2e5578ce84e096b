"""The API's own token, one for every client, call and instance: had by client credentials (RFC 6749
§4.4) or by a refresh token (§6; a rotated one is kept, and when the kept one is refused the configured
one is tried once: an operator may have put a new one in)."""

from __future__ import annotations

from .._errors import ConfigError
from .._logging import log_event
from ..store import Store
from ._endpoint import GrantError
from ._grant import Grant, Need
from ._slots import shared_slot
from ._tokens import Tokens


class ClientCredentials(Grant):
    type = grant_type = "client_credentials"

    def slot(self, need: Need) -> str:
        return shared_slot(need.api)

    async def fetch(self, need: Need, store: Store, slot: str, stored: Tokens | None) -> Tokens:
        form = self.form(need)
        if need.grant.audience:
            form["audience"] = need.grant.audience
        return await self.ask(need, form)


class RefreshToken(Grant):
    type = grant_type = "refresh_token"

    def slot(self, need: Need) -> str:
        return shared_slot(need.api)

    async def fetch(self, need: Need, store: Store, slot: str, stored: Tokens | None) -> Tokens:
        configured = _configured(need)
        current = stored.refresh if stored is not None and stored.refresh else configured
        form = self.form(need)
        try:
            return await self.ask(need, {**form, "refresh_token": current}, current)
        except GrantError as error:
            if not error.refused or current == configured:
                raise
        log_event("the kept refresh token was refused; the configured one is tried", api=need.api.name)
        return await self.ask(need, {**form, "refresh_token": configured}, configured)


def _configured(need: Need) -> str:
    grant = need.grant
    if grant.refresh_token is None:  # the reader requires it for this grant
        raise GrantError("no refresh_token is configured")
    try:
        value = grant.refresh_token.reveal()
    except ConfigError:
        raise GrantError("the refresh_token is not available to the gateway") from None
    if not value:
        raise GrantError("the refresh_token is empty")
    return value
