"""The admin API and page as the gateway serves them: the admins of the config served now, what a tool's
call does from the documents served now, and the page's sign-ins kept in the gateway's store."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

from starlette.routing import BaseRoute

from ..access import OidcProvider
from ..admin import LOOPBACK_HOSTS, ToolFacts, admin_routes
from ..config import AdminConfig
from ._gateway import Gateway


class LiveAdmins(Mapping[str, AdminConfig]):
    """The admins of the config the gateway serves now, so a reload that adds or removes one applies."""

    def __init__(self, gateway: Gateway) -> None:
        self._gateway = gateway

    def __getitem__(self, key: str) -> AdminConfig:
        return self._gateway.config.admins[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._gateway.config.admins)

    def __len__(self) -> int:
        return len(self._gateway.config.admins)


def tool_facts(gateway: Gateway, api: str, name: str) -> ToolFacts | None:
    """What the approvals page shows of a tool's call, from the documents served now."""
    state = gateway.snapshot.states.get(api)
    tool = state.toolset.get(name) if state is not None else None
    if state is None or tool is None:
        return None
    operation = tool.operation
    summary = operation.summary or tool.title or tool.description.partition("\n")[0]
    hints = tool.hints
    return ToolFacts(
        operation.method, operation.path, state.caller.base_url, summary, hints.read_only, hints.destructive
    )


def gateway_admin_routes(
    gateway: Gateway, *, loopback: bool, provider: Callable[[], OidcProvider] | None = None
) -> list[BaseRoute]:
    """People answer approvals here (admin keys of the config as it is now; the store's current gate),
    signed in on any instance that shares the store."""
    return admin_routes(
        gateway.ledger.desk,
        LiveAdmins(gateway),
        allowed_hosts=LOOPBACK_HOSTS if loopback else ("*",),
        tools=lambda api, name: tool_facts(gateway, api, name),
        store=gateway.ledger.open,
        signin=lambda: gateway.config.oauth_server,
        provider=provider,
    )
