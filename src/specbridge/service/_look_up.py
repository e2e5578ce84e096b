"""The ledger's look-up: what one logical call is now, read from the store before anything else of the
call touches it (before its rate limits, its files, its token, a person).

    found = await look_up(checked, opened, approvals, long, owner=…, clock=…)
        New         nothing of this call yet: it is sent, or asked of a person, for the first time
                    (`key`: the key's claim this call took already; `repeat_of`: the approval of the
                    same call before it, settled longer than `approvals.repeat_window` ago)
        Open        an open approval of this call: pending, approved, being sent, or its outcome not
                    yet handed out; the call attaches to it
        CallResult  the answer, nothing sent by this call: the key's stored result, the key reused
                    with other arguments, its outcome unknown, still held (`call-pending` once the
                    deadline comes), the running long call's result, a sent approval's outcome within
                    the repeat window ("already sent, at …, under approval …")

In that order: the running long call (any instance's), the key, the approval. A key alone (no
approval, no long call) is looked up by taking its claim: one store step, as the claim it needs anyway.
Every wait here ends before the call's deadline, less the answer's margin.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..approvals import Approvals
from ..call import CallResult
from ..store import Approval, Store
from ._approval import SENT, outcome
from ._idempotency import claim_key, replayed, wait_key
from ._long_calls import LongCalls
from ._request import Checked


@dataclass(frozen=True, slots=True)
class New:
    """Nothing of this call in the ledger: sent, or asked of a person, for the first time."""

    key: str | None = None  # the key's claim, taken by the look-up (a key alone)
    repeat_of: str | None = None  # the approval of the same call before this one


@dataclass(frozen=True, slots=True)
class Open:
    """An open approval of this call, which the call attaches to."""

    approval: Approval
    approvals: Approvals


Found = New | Open | CallResult


async def look_up(
    checked: Checked,
    store: Store,
    approvals: Approvals | None,
    long: LongCalls,
    *,
    owner: str,
    lease: float,
    clock: Callable[[], float],
) -> Found:
    """What `checked`'s call is now (see the module). `approvals`: the API's, for a tool that needs
    one; `lease`: a key's claim, taken here for a key alone."""
    request = checked.request
    api, deadline = request.api, request.deadline
    if api.calls.long:
        wait = deadline.wait(api.calls.wait)
        running = await long.attach(store, request.scope, checked.fingerprint, wait=wait)
        if running is not None:
            return running
    name = checked.key
    if name is not None:
        if approvals is None and not api.calls.long:  # a key alone: its claim is its look-up
            await store.hold_once(clock())  # a store that lost its data since: StoreLost, no send
            taken = await claim_key(
                store,
                name,
                owner,
                checked.fingerprint,
                lease=lease,
                ttl=api.idempotency.ttl,
                until=deadline,
                clock=clock,
            )
            if isinstance(taken, CallResult):
                request.trail.replayed = replayed(taken)
                return taken
            return New(key=taken)
        known = await wait_key(store, name, checked.fingerprint, until=deadline, clock=clock)
        if known is not None:
            request.trail.replayed = replayed(known)
            return known
    if approvals is None:
        return New()
    return await _approval(checked, approvals, clock())


async def _approval(checked: Checked, approvals: Approvals, now: float) -> Found:
    """The approval facet: the newest approval of this call, open (attach) or settled (its outcome
    within the repeat window; after it, a new approval that names it)."""
    latest = await approvals.latest(checked.fingerprint)
    if latest is None:
        return New()
    request = checked.request
    window = approvals.settings.repeat_window
    sent = latest.status in SENT
    within = sent and (latest.finished_at or latest.created_at) + window > now
    if latest.settled_at is None and (within or not sent):
        request.trail.approval = latest.id
        return Open(latest, approvals)
    if within:  # handed out already: an identical call within the window gets it again, as such
        request.trail.approval = latest.id
        request.trail.replayed = True
        return await outcome(approvals, latest)
    if latest.settled_at is None:  # sent longer ago than the window and never handed out: closed now
        await approvals.settle(latest)
    return New(repeat_of=latest.id if sent else latest.repeat_of or latest.id)
