"""The values one call passes from step to step (`_service.CallService.call` reads as the list of them):

CallRequest   what the adapter hands in: the API's settings and caller, the tool, the client, the
              arguments, the deadline, whether the client's user can be asked (`Asking`), who called
              (`access.Identity`: a token's scopes), and the `Trail` the audit line is made from
Planned       + the call's plan (looked up once) and the agent's idempotency key apart
Ready         + the checked arguments resolved (files, bindings, the caller's secret) into the one
              request to send, the values the gateway adds, and the call's one fingerprint
Question      approvals.by: client: what the client's user is asked (a value: the adapter turns it
              into an elicitation, or a 2026-07-28 `input_required` result)
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from .._logging import monotonic
from ..access import Identity
from ..call import Attachment, Caller, CallPlan, Credential, Selection
from ..config import ApiConfig, ClientConfig
from ..files import owner_of
from ..tools import Tool
from ._fingerprint import fingerprint
from ._waits import Deadline

Json = Any
Answer = Literal["accept", "decline", "cancel"]


@dataclass(frozen=True, slots=True)
class Asking:
    """Whether this call's client can put a question to its user (it declared elicitation), and the
    user's answer a 2026-07-28 retry carries (`input_responses`), if any."""

    can_ask: bool = False
    answer: Answer | None = None


NOBODY = Asking()


@dataclass(slots=True)
class Trail:
    """What the audit line of a call says besides its outcome, noted by the step that learns it: when
    the call began, its approval, whether a key's stored result answered it, the rule that refused it."""

    started: float = field(default_factory=monotonic)
    approval: str | None = None
    replayed: bool = False  # the outcome is an idempotency key's stored result: nothing sent by this call
    refused_by: str | None = None  # the config key of the tool rule or rate limit that refused it
    script: str | None = None  # the code-mode script that made this call (codemode/), by its id


@dataclass(frozen=True, slots=True)
class CallRequest:
    """One call of a document tool, as the adapter hands it to the call service."""

    api: ApiConfig
    caller: Caller
    tool: Tool
    client: ClientConfig | None
    arguments: Mapping[str, Json]
    deadline: Deadline
    asking: Asking = NOBODY
    identity: Identity | None = None  # who was let in over HTTP (None: stdio's `--client`, or no client)
    trail: Trail = field(default_factory=Trail, compare=False)

    @property
    def client_id(self) -> str | None:
        return self.client.id if self.client is not None else None

    @property
    def who(self) -> str:
        """The caller's name for rate limits and the audit log: the client, or `oauth:<…>` for a token
        of no known client; "" when nobody is named (one caller)."""
        if self.identity is not None:
            return self.identity.name
        return self.client.id if self.client is not None else ""

    @property
    def scopes(self) -> frozenset[str] | None:
        """The access token's scopes; None for a call that came without a token."""
        token = self.identity.token if self.identity is not None else None
        return token.scopes if token is not None else None

    @property
    def scope(self) -> tuple[str, str, str]:
        """(api, client, tool): whose call this is, for keys, long calls and approvals."""
        return (self.api.name, self.client_id or "", self.tool.name)

    @property
    def owner(self) -> str:
        """Whose files the call may pass on, and whose a kept answer becomes (as `/files` names it)."""
        return owner_of(self.client, self.identity)

    @property
    def bindings(self) -> Mapping[str, Json] | None:
        return self.client.bindings.get(self.api.name) if self.client is not None else None

    @property
    def secret_id(self) -> str | None:
        return self.client.secrets.get(self.api.name) if self.client is not None else None


@dataclass(frozen=True, slots=True)
class Planned:
    """Step 1 done: the call's plan, and the agent's arguments without its idempotency key."""

    request: CallRequest
    plan: CallPlan
    arguments: Mapping[str, Json]
    key: str | None  # the agent's idempotency key
    key_binding: Mapping[str, str]  # the derived key for the document's own key field, if any


@dataclass(frozen=True)
class Ready:
    """Steps 2-3 done: everything the one request is made of (the checked arguments with every bound
    value in, the caller's credential, the files' bytes), and what the gateway adds to what the model
    chose (as a person sees it)."""

    planned: Planned
    arguments: Mapping[str, Json]
    credential: Credential | None
    attachments: Mapping[str, Attachment] | None
    bound: Mapping[str, Json]
    selection: Selection | None = None  # the call's `fields`: what of the answer the model asked for

    @property
    def request(self) -> CallRequest:
        return self.planned.request

    @functools.cached_property
    def fingerprint(self) -> str:
        """Step 4: the call's one fingerprint, made the first time a step needs it (the key, the
        approval, the long call); a call that touches no store never makes it."""
        request = self.planned.request
        return fingerprint(
            request.scope, self.planned.arguments, self.bound, request.tool, request.caller.base_url
        )


@dataclass(frozen=True, slots=True)
class Question:
    """What the client's user is asked about an approval (approvals.by: client); `until` (monotonic) is
    how long the handshake era's question may wait; `ready` is where the call goes on once answered."""

    text: str
    approval: str
    until: float
    ready: Ready
