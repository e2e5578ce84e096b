"""One admission step for every route of the gateway's HTTP edge: a request becomes an `Identity` or a
`Refusal` (its status, code, message and headers), whatever it presents.

    admission = Admission(resource_servers)
    await admission.at_api(headers, clients, api, resource)   # /<api>/mcp; resource() for a token
    await admission.anywhere(headers, config, resource_of)    # /files: as some MCP endpoint would
    admission.admin_key(headers, admins)                      # the admin API

At an MCP endpoint: an API without `oauth:` takes client keys (`_keys.authenticate`; nobody when the
config has no clients), an API with `oauth:` a client key or an access token (`ResourceServer.admit`).

Anywhere else that acts for a caller of the MCP endpoints (`/files`: uploads, downloads and deletes of
that caller's files), the caller is who it would be at one of them: a client key of `clients.<id>`, or
an access token one API with `oauth:` takes (checked as that API checks it: its issuer, its audience,
its scopes, its clients). A request that presents nothing is let in only where some MCP endpoint lets
anybody in (`open_to_anyone`: a config without clients and an API without `oauth:`, which the bind rule
allows only on loopback); otherwise it is refused as that endpoint would refuse it. So no route takes
less than the MCP endpoints do, and a gateway whose every API takes OAuth tokens is closed everywhere.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from .._errors import ErrorCode
from ..config import AdminConfig, ApiConfig, ClientConfig, Config
from ._identity import NOBODY, Identity, Via
from ._keys import KEY_PREFIX, Refusal, authenticate, find_client, presented_key
from ._metadata import challenge
from ._resource import ResourceServers

PLAIN_CHALLENGE = (("WWW-Authenticate", 'Bearer realm="specbridge"'),)


def open_to_anyone(config: Config, api: ApiConfig) -> bool:
    """Whether `api`'s MCP endpoint lets in a request that presents nothing: no client keys anywhere in
    the config and no OAuth tokens for it. The bind rule (`gateway.exposure_refusal`) serves such an API
    only on loopback, and a route beside the MCP endpoints is open only when one of them is."""
    return not config.clients and api.oauth is None


def _key_missing(headers: tuple[tuple[str, str], ...] = PLAIN_CHALLENGE) -> Refusal:
    return Refusal(
        401,
        ErrorCode.KEY_MISSING,
        "send your key as `Authorization: Bearer <key>` or `X-Api-Key: <key>` (or, where an API takes them, "
        "an OAuth access token)",
        headers,
    )


class Admission:
    """The gateway's one admission step (see the module); holds each OAuth API's token checks."""

    def __init__(self, servers: ResourceServers | None = None) -> None:
        self.servers = servers or ResourceServers()
        self._keyed: dict[str, Identity] = {}  # a key client's identity, made once per config's client

    def _of_key(self, client: ClientConfig) -> Identity:
        found = self._keyed.get(client.id)
        if found is None or found.client is not client:  # a reload made a new client of that id
            if len(self._keyed) > 10_000:
                self._keyed.clear()
            found = self._keyed[client.id] = Identity(client, client.id)
        return found

    async def at_api(
        self,
        headers: Mapping[str, str],
        clients: Mapping[str, ClientConfig],
        api: ApiConfig,
        resource: Callable[[], str],
    ) -> Identity | Refusal:
        """Who calls `api`'s MCP endpoint (`resource()`: the URL a token must name, asked only for an
        API with `oauth:`)."""
        if api.oauth is not None:
            return await self.servers.of(api).admit(headers, clients, api, resource())
        found = authenticate(headers, clients, api.name)
        if found is None:
            return NOBODY
        if isinstance(found, Refusal):
            return found
        return self._of_key(found)

    async def anywhere(
        self,
        headers: Mapping[str, str],
        config: Config,
        resources: Callable[[ApiConfig], tuple[str, ...]],
    ) -> Identity | Refusal:
        """Who a request beside the MCP endpoints acts for (see the module); `resources(api)`: the URLs
        a token for `api` may name (its MCP endpoint's, the first one's challenge is shown)."""
        presented = presented_key(headers)
        oauth = [api for api in config.apis.values() if api.oauth is not None]
        if presented is None:
            if any(open_to_anyone(config, api) for api in config.apis.values()):
                return NOBODY
            if oauth:  # the first OAuth API's challenge leads a client to where tokens are had
                first = oauth[0]
                assert first.oauth is not None
                shown = challenge(resources(first)[0], first.oauth.advertised_scopes)
                hint = (("WWW-Authenticate", shown),)
                return _key_missing(hint)
            return _key_missing()
        client = find_client(presented, config.clients)
        if client is not None:
            return self._of_key(client)
        if not oauth or presented.startswith(KEY_PREFIX):
            return Refusal(
                401, ErrorCode.KEY_INVALID, "this key is not known to the gateway", PLAIN_CHALLENGE
            )
        first_refusal: Refusal | None = None
        for api in oauth:
            for resource in resources(api):
                outcome = await self.servers.of(api).admit(headers, config.clients, api, resource)
                if isinstance(outcome, Identity):
                    return outcome
                # a token that cannot be checked now says so rather than that it is invalid
                if first_refusal is None or outcome.status == 503:
                    first_refusal = outcome
        assert first_refusal is not None
        return first_refusal

    @staticmethod
    def admin_key(headers: Mapping[str, str], admins: Mapping[str, AdminConfig]) -> Identity | Refusal:
        """The admin whose key this request presents (client keys are not admin keys)."""
        key = presented_key(headers)
        if key is None:
            return Refusal(
                401,
                ErrorCode.KEY_MISSING,
                "send an admin key as `Authorization: Bearer <key>` or `X-Api-Key: <key>`",
                (("WWW-Authenticate", 'Bearer realm="specbridge-admin"'),),
            )
        admin = find_client(key, admins)
        if admin is None:
            return Refusal(
                401,
                ErrorCode.ADMIN_KEY_INVALID,
                "this is not an admin key (client keys are not admin keys; `specbridge keys new --admin`)",
                (("WWW-Authenticate", 'Bearer realm="specbridge-admin"'),),
            )
        return admin_identity(admin, "admin-key")

    async def aclose(self) -> None:
        await self.servers.aclose()


def admin_identity(admin: AdminConfig, via: Via) -> Identity:
    """An admin as the identity of an admin API or page request (`via`: admin-key or admin-session)."""
    return Identity(None, admin.id, via=via, admin=admin)
