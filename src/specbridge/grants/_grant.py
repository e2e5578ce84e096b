"""One class per OAuth grant by which the gateway has an API's token, shaped as authlib's grant classes
are: each says where the token of a call is kept, whether one may be fetched when none is kept, how it
is fetched (the form its token request posts), and what a call is told when none can be had. `Grants`
(`_grants`) runs every one of them the same way: remembered, stored, fetched once per slot by one
caller per process and one instance per store (`_keeper`), renewed once after the API's 401.

    class ClientCredentials(Grant):        # _shared: the API's one token
    class RefreshToken(Grant):             # _shared
    class AuthorizationCode(Grant):        # _account: each client's connected account
    class TokenExchange(Grant):            # _person: each signed-in person's token, RFC 8693
    class JwtBearer(Grant):                # _person: each signed-in person's token, RFC 7523

A new grant is one more class here and its `auth.type` in `config/_grant.py`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from ..access import Identity
from ..call import CallResult
from ..config import ApiConfig, GrantConfig, GrantType
from ..store import Store
from ._endpoint import TokenEndpoint
from ._slots import grant_of
from ._tokens import Tokens


class Gone(Exception):
    """What was kept for this slot can no longer be renewed, and was forgotten: the grant's `missing`
    tells the call what to do instead (connect the account again)."""


@dataclass(frozen=True, slots=True)
class Need:
    """One call's need of a token: the API, the call's client (its id), and who was let in."""

    api: ApiConfig
    client: str | None
    identity: Identity | None = None

    @property
    def grant(self) -> GrantConfig:
        return grant_of(self.api)


@dataclass(frozen=True, slots=True)
class Tools:
    """What a grant works with: the API's token endpoint, the clock, the gateway's store, and a way to
    make this process forget what it remembers of a slot."""

    endpoint: Callable[[ApiConfig], TokenEndpoint]
    clock: Callable[[], float]
    forget: Callable[[str], None]


class Grant(ABC):
    """How one OAuth grant has a call's token (see the module)."""

    type: ClassVar[GrantType]  # what `auth.type` names it (`oauth2_<type>`)
    grant_type: ClassVar[str]  # what its token requests say (RFC 6749 §4, RFC 8693, RFC 7523)
    fetches_missing: ClassVar[bool] = True  # False: only kept tokens are renewed (an account to connect)

    def __init__(self, tools: Tools) -> None:
        self.tools = tools

    @abstractmethod
    def slot(self, need: Need) -> str | CallResult:
        """Where this call's token is kept (`_slots`), or the refusal when this call can have none."""

    @abstractmethod
    async def fetch(self, need: Need, store: Store, slot: str, stored: Tokens | None) -> Tokens:
        """New tokens for `slot`, given the stored ones (maybe expired); raises GrantError, or Gone."""

    async def missing(self, need: Need) -> CallResult:
        """What a call is told when no token is kept and none may be fetched."""
        return CallResult(
            f"no token of {need.api.name} is kept for this call; nothing was sent", is_error=True
        )

    def form(self, need: Need) -> dict[str, str]:
        """The parameters every token request of this grant carries (`grant_type`, `scope`)."""
        grant = need.grant
        found = {"grant_type": self.grant_type}
        if grant.scopes:
            found["scope"] = " ".join(grant.scopes)
        return found

    async def ask(self, need: Need, form: dict[str, str], refresh: str | None = None) -> Tokens:
        """Post `form` to the API's token endpoint (through its egress policy)."""
        endpoint = self.tools.endpoint(need.api)
        return await endpoint.ask(need.grant, form, self.tools.clock(), refresh)
