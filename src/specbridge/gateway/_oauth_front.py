"""The gateway's own authorization server (`oauth_server:`, `specbridge.front`) as the gateway serves it:
on the gateway's store and the config served now, its pages behind the Host check (and the admin
page's form reader: Host, Origin, 16 KB), and its sign-ins what the resource server asks about a
front token's `sid`."""

from __future__ import annotations

from collections.abc import Callable

from starlette.requests import Request
from starlette.routing import BaseRoute

from .._errors import SpecbridgeError
from ..admin import LOOPBACK_HOSTS, Refused, read_form
from ..front import Front, front_routes
from ._edge import host_guard
from ._gateway import Gateway


def gateway_front(gateway: Gateway) -> Front:
    return Front(gateway.ledger.open, lambda: gateway.config)


def front_routes_of(
    front: Front, host_allowed: Callable[[str | None], bool], *, loopback: bool
) -> list[BaseRoute]:
    hosts = LOOPBACK_HOSTS if loopback else ("*",)

    guard = host_guard(host_allowed)

    async def form(request: Request) -> dict[str, str]:
        try:
            return await read_form(request, hosts)
        except Refused as refused:  # another site's form, another Host, too large
            raise SpecbridgeError(refused.message, code=refused.code) from None

    return front_routes(front, guard, form)
