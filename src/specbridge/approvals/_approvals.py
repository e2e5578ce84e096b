"""Human approval of risky calls (PRODUCT §5.1), on the store and nothing else: no MCP, no HTTP.

The record's life, as the gateway's call service (service/) moves it, one store step at a time:

    request ──► pending ──approve──► approved ──claim──► executing ──► done / failed ──► the result (once)
                   │                                          │
                   ├──reject──► rejected ──► the reason (once) └──► outcome unknown (once): the sender
                   └──expire──► expired ──► approval-expired (once)  died, or its lease passed

"The same call" has the same fingerprint (the call service's one fingerprint of a call: API, tool,
client, arguments, bound values and the tool's operation). While an approval for it is open, calling
again attaches to it (`request`). Handing its outcome to an agent *settles* it (`settle`, or `finish`
for the call that sent it), and the next identical call asks a person again (a redraft is a new
approval). An expired approval is settled when an agent is told it expired: the next call makes a
new one. `done` is a 2xx answer; `failed` any other (a non-2xx status, no answer, or a request that
could not be built): the result says which.

Who claims an approved call: the agent's call waiting on it, the same call again, or (`approvals.send:
on_answer`) the gateway's background sender (`service/_sending`); `claim` lets one of them send it.
"""

from __future__ import annotations

import secrets
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import anyio

from .._errors import CallError, ErrorCode
from ..config import ApprovalsConfig
from ..store import FIRST, Announcement, Approval, ClientApprovals, Condition, Page, Status, Store, poll
from ._view import approval_json
from ._view import iso as _iso

Json = Any
EXECUTING = frozenset({Status.EXECUTING})
TERMINAL = frozenset({Status.REJECTED, Status.EXPIRED, Status.DONE, Status.FAILED, Status.OUTCOME_UNKNOWN})
FINISHED = frozenset({Status.DONE, Status.FAILED})  # sent (or refused as built): `result` holds the outcome
MAX_REASON = 2000
OPERATORS = "approvals"  # the outbox receiver of the operators' webhook (`approvals.webhook`)
# The outbox rows announcing one event (`approval.requested` / `approval.answered`) of one approval at
# `now`: one per receiver, all written in the store step that makes the change.
Announcer = Callable[[str, Approval, float], Sequence[Announcement]]


class ApprovalError(CallError):
    """An approval that does not (yet) allow the call or the answer; `approval` is the record, if any."""

    def __init__(self, message: str, *, code: ErrorCode, approval: Approval | None = None) -> None:
        super().__init__(message, code=code)
        self.approval = approval


class Approvals:
    """The approval flow over one store. `clock` gives wall time (records, expiry, leases); `lease` is how
    long an execution may run before it reads as outcome unknown, so keep it above the call deadline."""

    def __init__(
        self,
        store: Store,
        settings: ApprovalsConfig | None = None,
        *,
        clock: Callable[[], float] = time.time,
        lease: float = 120.0,
        owner: str | None = None,
        announce: bool | Announcer = False,
        waiting: Counter[str] | None = None,
    ) -> None:
        self.store = store
        self.settings = settings or ApprovalsConfig()  # the config's own object: read here, nowhere else
        self.clock = clock
        self.lease = lease
        self.owner = owner or secrets.token_hex(8)
        # approval.requested / approval.answered into the outbox: True for the operators' webhook alone,
        # or an `Announcer` fanning each event out to its receivers.
        self.announce = announce
        self._changed = anyio.Event()  # set (and replaced) whenever this process answers or finishes one
        # approval ids calls of this process wait on now (shared by a gateway's `Approvals`): the
        # background sender leaves those to the waiting call, which sends them itself
        self.waiting: Counter[str] = waiting if waiting is not None else Counter()

    # What a person does

    async def get(self, approval_id: str) -> Approval:
        """The approval, with a pending one past its expiry read (and stored) as expired, and an
        execution past its lease as outcome unknown."""
        approval = await self.store.get_approval(approval_id)
        if approval is None:
            raise ApprovalError(f"there is no approval {approval_id!r}", code=ErrorCode.APPROVAL_NOT_FOUND)
        return await self._as_of_now(approval)

    async def latest(self, fingerprint: str) -> Approval | None:
        """The newest approval of the call `fingerprint` names (open or settled), read as `get` reads."""
        approval = await self.store.latest_approval(fingerprint)
        return None if approval is None else await self._as_of_now(approval)

    async def _as_of_now(self, approval: Approval) -> Approval:
        now = self.clock()
        if approval.status is Status.PENDING and approval.expires_at <= now:
            when = Condition(statuses=frozenset({Status.PENDING}))  # open until an agent is told (settle)
            changed = await self.store.update_approval(approval.id, when, {"status": Status.EXPIRED})
            return changed or await self.get(approval.id)
        if approval.status is Status.EXECUTING and (approval.lease_until or 0) <= now:
            when = Condition(statuses=frozenset({Status.EXECUTING}), lease_passed_at=now)
            changed = await self.store.update_approval(
                approval.id, when, {"status": Status.OUTCOME_UNKNOWN, "finished_at": now}
            )
            return changed or await self.get(approval.id)
        return approval

    async def groups(self, status: Status, per_client: int) -> list[ClientApprovals]:
        """Every client with approvals in `status`, the longest wait first, each counted whole with its
        `per_client` oldest (`Store.approval_groups`)."""
        await self.store.expire_due(self.clock())
        return await self.store.approval_groups(status, per_client)

    async def list(
        self, status: Status | None = None, limit: int = 100, page: Page = FIRST
    ) -> list[Approval]:
        """A page of approvals, newest first (see `Store.list_approvals`): every one is reachable by
        its pages, whatever another client does."""
        await self.store.expire_due(self.clock())
        return await self.store.list_approvals(status, limit, page)

    async def approve(self, approval_id: str, by: str) -> Approval:
        return await self._answer(approval_id, Status.APPROVED, by, None)

    async def reject(self, approval_id: str, by: str, reason: str) -> Approval:
        reason = reason.strip()
        if not reason:
            raise ApprovalError(
                "a rejection needs a reason: the agent reads it to redraft the call",
                code=ErrorCode.APPROVAL_REASON_MISSING,
            )
        return await self._answer(approval_id, Status.REJECTED, by, reason[:MAX_REASON])

    async def _answer(self, approval_id: str, status: Status, by: str, reason: str | None) -> Approval:
        now = self.clock()
        when = Condition(statuses=frozenset({Status.PENDING}), not_expired_at=now)
        changes = {"status": status, "answered_by": by, "answered_at": now, "reason": reason}
        announce: Sequence[Announcement] = ()
        if self.announce and (current := await self.store.get_approval(approval_id)) is not None:
            answer = replace(current, status=status, answered_by=by, answered_at=now, reason=reason)
            # Never before its request in its stream, even when another instance's clock is behind.
            announce = self._events("approval.answered", answer, max(now, current.created_at + 0.001))
        answered = await self.store.update_approval(approval_id, when, changes, announce)
        if answered is not None:
            self._wake()
            return answered
        current = await self.get(approval_id)
        if current.status is Status.EXPIRED:
            raise ApprovalError(
                f"approval {approval_id} expired unanswered; nothing was sent, and the agent's next "
                "identical call asks again",
                code=ErrorCode.APPROVAL_EXPIRED,
                approval=current,
            )
        raise ApprovalError(
            f"approval {approval_id} was already answered ({current.status} by {current.answered_by})",
            code=ErrorCode.APPROVAL_ANSWERED,
            approval=current,
        )

    # What a call does

    async def request(
        self,
        api: str,
        tool: str,
        client: str,
        arguments: Mapping[str, Json],
        bound: Mapping[str, Json],
        *,
        fingerprint: str | None = None,
        key: str | None = None,
        repeat_of: str | None = None,
    ) -> Approval:
        """The open approval for the call `fingerprint` names (the call service's fingerprint of it), or
        a new pending one (never a duplicate); without a fingerprint, a record nothing attaches to.
        `key`: the agent's idempotency key as the store names it, which whoever sends the call records
        its outcome under; `repeat_of`: the approval of the same call before this one."""
        now = self.clock()
        approval_id = secrets.token_hex(16)  # hex: an id a person types never starts with "-"
        record = Approval(
            id=approval_id,
            api=api,
            tool=tool,
            client=client,
            arguments=dict(arguments),
            bound=dict(bound),
            fingerprint=fingerprint or f"record:{approval_id}",
            status=Status.PENDING,
            created_at=now,
            expires_at=now + self.settings.expire,
            idempotency_key=key,
            repeat_of=repeat_of,
        )
        announce = self._events("approval.requested", record, now)
        approval, _ = await self.store.attach_or_create(record, now, announce)
        return approval

    async def wait(self, approval_id: str, timeout: float, *, sends: bool = True) -> Approval:
        """The approval once it is neither pending nor executing, or as it stands after `timeout` seconds.
        Answers given in this process wake the wait at once; others are seen by polling (50 ms doubling
        to 1 s), so another instance's answer arrives within a second. `sends`: the waiting caller
        sends the call itself once approved (counted in `waiting`); False for one that only reads."""
        self.waiting[approval_id] += sends
        try:
            return await poll(
                lambda: self._answered(approval_id), seconds=timeout, first=0.05, most=1.0, pause=self._woken
            )
        finally:
            self.waiting[approval_id] -= sends
            if self.waiting[approval_id] <= 0:
                del self.waiting[approval_id]

    async def _answered(self, approval_id: str) -> tuple[bool, Approval]:
        approval = await self.get(approval_id)
        return approval.status not in (Status.PENDING, Status.EXECUTING), approval

    async def _woken(self, seconds: float) -> None:
        with anyio.move_on_after(seconds):
            await self._changed.wait()

    def _events(self, topic: str, approval: Approval, now: float) -> Sequence[Announcement]:
        if callable(self.announce):
            return self.announce(topic, approval, now)
        return [approval_event(topic, approval, now)] if self.announce else []

    def _wake(self) -> None:
        changed, self._changed = self._changed, anyio.Event()
        changed.set()

    async def claim(self, approval: Approval) -> Approval | None:
        """Take an approved call for sending: of every caller (on every instance), one gets the record,
        now executing under this owner until its lease passes; the others get None."""
        return await self.store.update_approval(
            approval.id,
            Condition(statuses=frozenset({Status.APPROVED})),
            {"status": Status.EXECUTING, "owner": self.owner, "lease_until": self.clock() + self.lease},
        )

    async def finish(
        self,
        approval: Approval,
        result: Json,
        *,
        settle: bool = True,
        announce: Callable[[Approval, float], Sequence[Announcement]] | None = None,
    ) -> Approval | None:
        """The result of the call this owner claimed (`result_json`'s form): `done` for a success,
        `failed` for an error result. `settle`: it is handed to its agent at once (the agent's own
        call); the background sender keeps it for the agent's next identical call or `get_call_result`
        instead, with `announce(finished, now)` (`call.completed`) in the same store step. A result
        that comes after the lease passed (read as unknown meanwhile) is still the truth."""
        now = self.clock()
        failed = isinstance(result, dict) and bool(result.get("is_error"))
        mine = Condition(statuses=frozenset({Status.EXECUTING, Status.OUTCOME_UNKNOWN}), owner=self.owner)
        done = {"status": Status.FAILED if failed else Status.DONE, "result": result, "finished_at": now}
        if settle:
            done["settled_at"] = now
        events: Sequence[Announcement] = ()
        if announce is not None:
            events = announce(replace(approval, status=done["status"], result=result, finished_at=now), now)
        try:
            return await self.store.update_approval(approval.id, mine, done, events)
        finally:
            self._wake()

    async def abandon(self, approval: Approval) -> None:
        """The claimed call may have been sent, and its result is lost: outcome unknown, never sent again."""
        mine = Condition(statuses=EXECUTING, owner=self.owner)
        try:
            await self.store.update_approval(
                approval.id, mine, {"status": Status.OUTCOME_UNKNOWN, "finished_at": self.clock()}
            )
        finally:
            self._wake()

    async def release(self, approval: Approval) -> None:
        """The claimed call was not sent after all (the store failed before the send): approved again,
        for whoever sends it next."""
        mine = Condition(statuses=EXECUTING, owner=self.owner)
        try:
            await self.store.update_approval(
                approval.id, mine, {"status": Status.APPROVED, "owner": None, "lease_until": None}
            )
        finally:
            self._wake()

    async def settle(self, approval: Approval) -> None:
        """The outcome was handed to an agent: the next identical call is a new request."""
        when = Condition(statuses=TERMINAL, unsettled=True)
        await self.store.update_approval(approval.id, when, {"settled_at": self.clock()})


def client_receiver(client_id: str) -> str:
    """The outbox receiver of a client's own webhook (`clients.<id>.webhook`)."""
    return f"client:{client_id}"


def approval_event(
    topic: str,
    approval: Approval,
    now: float,
    *,
    receiver: str = OPERATORS,
    data: Callable[[Approval], Json] = approval_json,
) -> Announcement:
    """A webhook event in the Standard Webhooks payload shape (type, timestamp, data) for `receiver`, in
    the stream of this approval for that receiver (its events go out one at a time, in order)."""
    payload = {"type": topic, "timestamp": _iso(now), "data": data(approval)}
    return Announcement(topic, payload, now, receiver=receiver, stream=f"{receiver}|approval:{approval.id}")
