"""What the store keeps: approvals, execute-once claims and outbox deliveries, as frozen records.

Times are seconds since the epoch (float) and always come from the caller (`now`), so every backend
decides "expired" and "lease passed" the same way and tests can move a clock instead of sleeping.
Values the agent or the API produced (arguments, bound values, results, payloads) are JSON.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

Json = Any


class Status(StrEnum):
    PENDING = "pending"  # waiting for a person
    APPROVED = "approved"  # a person said yes; nothing sent yet
    REJECTED = "rejected"  # a person said no, with a reason
    EXPIRED = "expired"  # nobody answered within `approvals.expire`
    EXECUTING = "executing"  # one caller claimed the call and is sending it (until `lease_until`)
    DONE = "done"  # sent once; `result` holds what the API answered (a 2xx status)
    FAILED = "failed"  # sent once (or refused as it was built); `result` holds the error (a non-2xx status)
    OUTCOME_UNKNOWN = "outcome_unknown"  # claimed, then its owner died or failed before storing a result


@dataclass(frozen=True, slots=True)
class Approval:
    id: str
    api: str
    tool: str
    client: str
    arguments: dict[str, Json]  # what the model sent
    bound: dict[str, Json]  # values the config binds (the model never saw them), shown as such
    fingerprint: str  # api + tool + client + arguments + bound: "the same call" attaches to this record
    status: Status
    created_at: float
    expires_at: float  # a pending approval not answered by then is expired
    reason: str | None = None
    answered_by: str | None = None
    answered_at: float | None = None
    owner: str | None = None  # who claimed the execution
    lease_until: float | None = None  # an execution not finished by then reads as outcome unknown
    finished_at: float | None = None
    result: Json = None
    settled_at: float | None = None  # the outcome was handed to an agent: the same call now makes a new one
    # Written once, at creation: the agent's idempotency key as the store names it (`idem:…`, never the
    # key itself), under which whoever sends the call records its outcome too; and the approval of the
    # same call before this one (a repeat after `approvals.repeat_window`), shown to whoever answers.
    idempotency_key: str | None = None
    repeat_of: str | None = None


@dataclass(frozen=True, slots=True)
class Condition:
    """When `Store.update_approval` may apply its changes (all given parts must hold)."""

    statuses: frozenset[Status]
    owner: str | None = None
    not_expired_at: float | None = None  # expires_at > this
    lease_passed_at: float | None = None  # lease_until <= this
    unsettled: bool = False


# The fields `Store.update_approval` may change; everything else is written once, at creation.
CHANGEABLE = frozenset(
    {
        "status",
        "reason",
        "answered_by",
        "answered_at",
        "owner",
        "lease_until",
        "finished_at",
        "result",
        "settled_at",
    }
)


class ClaimState(StrEnum):
    HELD = "held"  # its owner is running it
    DONE = "done"  # finished; `result` is stored
    UNKNOWN = "unknown"  # held, but the lease passed without a result: never run it again


@dataclass(frozen=True, slots=True)
class Claim:
    key: str
    owner: str
    state: ClaimState
    fingerprint: str  # what was claimed (e.g. the arguments), so a reused key can be told apart
    lease_until: float
    expires_at: float  # when the store may forget this claim and its result
    result: Json = None
    won: bool = field(default=False, compare=False)  # this `claim()` call took it


@dataclass(frozen=True, slots=True)
class Announcement:
    """An outbox delivery written in the same atomic step as the approval change it announces."""

    topic: str
    payload: Json
    at: float  # created and due at
    receiver: str = ""  # whose webhook it goes to (`approvals`, `client:<id>`); "" routes by the payload
    stream: str = ""  # deliveries of one stream go out one at a time, oldest first; "" for none


@dataclass(frozen=True, slots=True)
class Delivery:
    id: str
    topic: str
    payload: Json
    created_at: float
    attempts: int  # leases handed out so far, this one included
    last_error: str | None = None
    receiver: str | None = None
    stream: str | None = None


@dataclass(frozen=True, slots=True)
class StoredFile:
    """A file a client uploaded (or a binary answer kept for it); the bytes travel beside the record."""

    id: str
    owner: str  # the client id: only its owner can read, pass on or delete it
    content_type: str
    filename: str | None
    size: int
    created_at: float
    expires_at: float  # gone after this (`files.ttl`); `sweep_files` removes the bytes


@dataclass(frozen=True, slots=True)
class StoredSession:
    """A sign-in or protocol session any instance may serve: an MCP session of the handshake era
    (`kind` "mcp:API") or an admin page's sign-in (`kind` "admin"). The store never sees the id the
    client holds, only its SHA-256 (`id`), so reading the store opens no session."""

    id: str  # hex SHA-256 of the session id the client holds
    kind: str
    owner: str  # the client (or admin) it belongs to: no one else's key may use it
    data: Json  # what the kind keeps (protocol version, capabilities; the admin's key hash)
    created_at: float
    last_seen: float
    expires_at: float  # an idle session (or a sign-in past its lifetime) is gone after this
