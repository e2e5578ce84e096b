"""`Front`: the gateway's own OAuth 2.1 authorization server (`oauth_server:`), its parts wired once per
gateway and read against the config served now (a reload's rules and lifetimes apply at once)."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

from ..access import OidcProvider
from ..config import Config, OAuthServerConfig, UpstreamConfig
from ..grants import Sealer, sealer_of
from ..store import Store
from ._clients import Clients
from ._flow import Flow
from ._issue import Issuer
from ._records import Records


class Front:
    def __init__(
        self,
        store: Callable[[], Awaitable[Store]],
        config: Callable[[], Config],
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._config = config
        self.records = Records(store, self._sealer, clock)
        self.clients = Clients(lambda: self.settings, self.records)
        self.issuer = Issuer(self.records, config)
        self._providers: dict[tuple[UpstreamConfig, tuple[str, ...]], OidcProvider] = {}
        self.flow = Flow(config, self.records, self.clients, self.provider, self.issuer)

    @property
    def enabled(self) -> bool:
        return self._config().oauth_server is not None

    @property
    def settings(self) -> OAuthServerConfig:
        settings = self._config().oauth_server
        assert settings is not None  # the routes answer 404 without `oauth_server`
        return settings

    def _sealer(self) -> Sealer:
        return sealer_of(self.settings.store_key)

    def provider(self) -> OidcProvider:
        """The sign-in provider's relying party (made again when its settings change)."""
        settings = self.settings
        key = (settings.upstream, settings.allow)
        found = self._providers.get(key)
        if found is None:
            found = self._providers[key] = OidcProvider(settings.upstream, settings.allow)
        return found

    async def alive(self, family: str) -> bool:
        """Whether a sign-in (an access token's `sid`) stands: the resource server asks this."""
        if self._config().oauth_server is None:
            return False
        return await self.records.get("family", family) is not None

    async def aclose(self) -> None:
        await self.clients.aclose()
        for provider in self._providers.values():
            await provider.aclose()
