"""The values one call passes from step to step (`_service.CallService.call` reads as the list of them):

CallRequest   what the adapter hands in: the API's settings and caller, the tool, the client, the
              arguments, the deadline, whether the client's user can be asked (`Asking`), who called
              (`access.Identity`: a token's scopes), and the `Trail` the audit line is made from
Planned       + the call's plan (looked up once) and the agent's idempotency key apart
Checked       + the arguments checked, and the call's one fingerprint: what the ledger looks up
Ready         + resolved (files, bindings, the caller's secret) into the one request to send
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
from ..files import ANONYMOUS, owner_of
from ..tools import Tool
from ._fingerprint import fingerprint
from ._idempotency import store_key
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
    def principal(self) -> str:
        """Whose call this is, for keys, approvals, long calls and files: the client, or for a token of
        no known client (`oauth.allow_unknown_clients`) its subject, `oauth:<sub>`, so two people
        holding such tokens never share a key, an approval, a long call or a file (issue 31, item 5);
        "" when nobody is named (one caller)."""
        return principal_of(self.client, self.identity)

    @property
    def scope(self) -> tuple[str, str, str]:
        """(api, caller, tool): whose call this is, for keys, long calls and approvals."""
        return (self.api.name, self.principal, self.tool.name)

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


def principal_of(client: ClientConfig | None, identity: Identity | None) -> str:
    """`CallRequest.principal`: the client's id; for a token of no known client, `oauth:<sub>` (its
    client id only when the token names no subject); "" for no client at all. The owner of its files
    is the same (`files.owner_of`), so a caller's calls find its own uploads."""
    owner = owner_of(client, identity)
    return "" if owner == ANONYMOUS else owner


@dataclass(frozen=True, slots=True)
class Planned:
    """Step 1 done: the call's plan, and the agent's arguments without its idempotency key."""

    request: CallRequest
    plan: CallPlan
    arguments: Mapping[str, Json]
    key: str | None  # the agent's idempotency key
    key_binding: Mapping[str, str]  # the derived key for the document's own key field, if any

    @property
    def key_name(self) -> str | None:
        """The key as the store names it (`idem:…`), or None without a key."""
        return store_key(self.request.scope, self.key) if self.key is not None else None


@dataclass(frozen=True)
class Checked:
    """Step 2 done: the arguments checked (file references apart, the `fields` selection apart), and
    what the gateway adds to what the model chose (as a person sees it). What the ledger looks up."""

    planned: Planned
    arguments: dict[str, Json]
    references: dict[str, Mapping[str, Json]]
    selection: Selection | None = None  # the call's `fields`: what of the answer the model asked for
    # the key's store name, when it is not the agent's own (a call made again from its approval)
    key_name: str | None = None

    @property
    def request(self) -> CallRequest:
        return self.planned.request

    @property
    def bound(self) -> dict[str, Json]:
        return {**self.planned.plan.binding_values, **self.planned.key_binding}

    @property
    def key(self) -> str | None:
        """The agent's key as the store names it (`idem:…`): the call's own, or its approval's."""
        return self.key_name or self.planned.key_name

    @functools.cached_property
    def fingerprint(self) -> str:
        """The call's one fingerprint, made the first time a step needs it (the ledger's look-up);
        a call that touches no store never makes it. With a key it covers the key: two keys are two
        calls, as the agent meant them, for an approval and a long call as for the key itself."""
        request = self.planned.request
        return fingerprint(
            request.scope,
            self.planned.arguments,
            self.bound,
            request.tool,
            request.caller.base_url,
            key=self.key,
        )


@dataclass(frozen=True)
class Ready:
    """Step 3 done: everything the one request is made of (the checked arguments with every bound
    value in, the caller's credential, the files' bytes)."""

    checked: Checked
    arguments: Mapping[str, Json]
    credential: Credential | None
    attachments: Mapping[str, Attachment] | None

    @property
    def planned(self) -> Planned:
        return self.checked.planned

    @property
    def request(self) -> CallRequest:
        return self.checked.planned.request

    @property
    def bound(self) -> dict[str, Json]:
        return self.checked.bound

    @property
    def selection(self) -> Selection | None:
        return self.checked.selection

    @property
    def key(self) -> str | None:
        return self.checked.key

    @property
    def fingerprint(self) -> str:
        return self.checked.fingerprint


@dataclass(frozen=True, slots=True)
class Question:
    """What the client's user is asked about an approval (approvals.by: client); `until` (monotonic) is
    how long the handshake era's question may wait; `ready` is where the call goes on once answered."""

    text: str
    approval: str
    until: float
    ready: Checked | Ready  # resolved already when the call made the approval, else once approved
