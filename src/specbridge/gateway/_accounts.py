"""Per-client accounts of an API (`oauth2_authorization_code`), the MCP and HTTP side: the service's
`account-not-connected` result put to the client, and the connect pages served (grants/).

    ask_to_connect(...)  a client that declared URL-mode elicitation (MCP 2025-11-25) is asked to have
                         its user open the connect link: handshake era, the call answers the
                         `URLElicitationRequiredError` (-32042) carrying it (the client retries once
                         the account is connected); 2026-07-28, an `input_required` result with the
                         URL elicitation (a retry that answered it and still has no account gets the
                         result itself). Any other client gets the error result, whose text carries
                         the link.
    account_routes(...)  `/oauth/connect/<api>` and `/oauth/callback/<api>` behind the gateway's Host
                         check (not its Origin check: the form posts from the gateway's own page)
"""

from __future__ import annotations

from collections.abc import Callable

import mcp_types as types
from mcp.server.session import ServerSession
from mcp.shared.exceptions import UrlElicitationRequiredError
from starlette.routing import BaseRoute

from .._logging import log_event
from ..grants import AccountNotConnected, connect_routes
from ._edge import host_guard
from ._gateway import Gateway
from ._mcp import to_mcp_result

CONNECT_KEY = "connect"  # the key of the URL elicitation in an input_required result, and of its answer


def declared_url(session: ServerSession) -> bool:
    capabilities = session.client_capabilities
    elicitation = capabilities.elicitation if capabilities is not None else None
    return elicitation is not None and elicitation.url is not None


def ask_to_connect(
    session: ServerSession,
    round_trip: bool,
    responses: types.InputResponses | None,
    result: AccountNotConnected,
) -> types.CallToolResult | types.InputRequiredResult:
    """What the client gets for a call whose account is not connected (see the module)."""
    if not result.url or not declared_url(session) or (round_trip and CONNECT_KEY in (responses or {})):
        return to_mcp_result(result)
    message = f"Connect your account of {result.api} to go on (the link works once, within 10 minutes)."
    log_event("tool call asks the client's user to connect an account", api=result.api)
    if round_trip:
        elicit = types.ElicitRequestURLParams(message=message, url=result.url)
        return types.InputRequiredResult(input_requests={CONNECT_KEY: types.ElicitRequest(params=elicit)})
    elicitation = types.ElicitRequestURLParams(
        message=message, url=result.url, elicitation_id=result.elicitation_id
    )
    raise UrlElicitationRequiredError([elicitation], message=result.text)


def account_routes(gateway: Gateway, host_allowed: Callable[[str | None], bool]) -> list[BaseRoute]:
    """The connect pages of the APIs the gateway serves now (a reload's settings apply)."""

    guard = host_guard(host_allowed)

    def title(api: str) -> str | None:  # the API as people know it: its document's title
        state = gateway.snapshot.states.get(api)
        return state.toolset.document.title if state is not None else None

    return connect_routes(gateway.calls.grants, lambda: gateway.config, guard, title)
