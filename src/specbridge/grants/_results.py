"""What grants/ hands the call service: a token as a `Credential` that can be renewed once after the
API refused it (401), and the result of a call whose client has not connected its account."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from ..call import CallResult, Credential


@dataclass(frozen=True, slots=True, repr=False)
class Fetched(Credential):
    """A token the gateway fetched (sent as `Authorization: Bearer`; redacted from answers like any
    credential). `renew()`: another token, for the one retry after the API answered 401 with this one
    (None: no other can be had, and the call keeps its 401)."""

    renew: Callable[[], Awaitable[Credential | None]] | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class AccountNotConnected(CallResult):
    """`account-not-connected`: nothing was sent; the client's user is to open `url` (the gateway's
    connect link, used once, for ten minutes) and connect the account. The adapter may ask for that by
    URL-mode elicitation (MCP 2025-11-25) with `elicitation_id`; otherwise the text carries the URL."""

    url: str = ""
    elicitation_id: str = ""
    api: str = ""
