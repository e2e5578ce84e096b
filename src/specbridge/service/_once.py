"""Claim, send, store (`once`): the one step by which every way into the API (the agent's call, the
gateway's sender, a long call's background) sends a call. The claim is the only step after which a
call's outcome can be unknown; everything before it (plan, check, the ledger's look-up, rate limits,
files, secrets, a person's answer) ends in a result that says so, and so does a request that cannot be
built after it.

    known = await claim(...)          # the approval's execution, then the key (a key alone was taken
                                      #    by the look-up; a long call's own claim when it started);
                                      #    `known`: an outcome this call gets without sending
    result = await send(...)          # only when nothing is known: built, sent once, through call/
                                      #    (`held.sent` from the moment it goes to the network)
    await store(held, result, ...)    # one serialisation, kept where it is held: the approval, the
                                      #    long call (with `call.completed`), then the key

A fault or cancellation between the claim and the store leaves every held claim outcome unknown
(`abandon`), never to be sent again.
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import logging
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import anyio

from .._errors import CallError, ErrorCode
from .._logging import log_event
from .._telemetry import step
from ..approvals import Approvals
from ..call import CallResult
from ..files import Files
from ..store import Announcement, Approval, Store, StoreError
from ._approval import Approved, outcome
from ._idempotency import claim_key, record, replayed
from ._long_calls import Running
from ._renewing import sent
from ._request import Ready
from ._results import store_unavailable
from ._stopping import DRAINED, STOPPING, Stopping
from ._waits import Deadline

Json = Any


def result_json(result: CallResult) -> Json:
    """A call's result as the store keeps it (an image as base64): made once per call, in step 8, for
    every claim it completes."""
    image = result.image
    return {
        "text": result.text,
        "is_error": result.is_error,
        "code": None if result.code is None else str(result.code),
        "status": result.status,
        "structured": result.structured,
        "image": None
        if image is None
        else {"data": base64.b64encode(image.data).decode("ascii"), "mime_type": image.mime_type},
        "file": None if result.file is None else dataclasses.asdict(result.file),  # a kept answer's file
    }


@dataclass(slots=True)
class Held:
    """What this call holds after step 6: its claims in the store, each to be completed in step 8."""

    store: Store | None = None
    owner: str = ""
    key: str | None = None  # the idempotency claim's name
    approval: Approval | None = None  # the approval's execution
    approvals: Approvals | None = None
    long: Running | None = None  # the long call this is the background of
    sent: bool = False  # the request went to the network (from here on it may have had an effect)
    # The approval's result is handed to an agent at once (its own call), or kept for its next call
    # (the background sender of `approvals.send: on_answer`), with these events (`call.completed`).
    settle: bool = True
    announce: Callable[[Approval, float], Sequence[Announcement]] | None = None

    async def give_back(self) -> None:
        """Nothing was sent: the key is free again and the approval approved again (best effort)."""
        with contextlib.suppress(StoreError):
            if self.key is not None and self.store is not None:
                await self.store.abandon(self.key, self.owner, sent=False)
            if self.approval is not None and self.approvals is not None:
                await self.approvals.release(self.approval)
        self.key, self.approval = None, None


async def claim(
    ready: Ready,
    held: Held,
    approved: Approved | None,
    *,
    lease: float,
    until: Deadline,
    clock: Callable[[], float],
) -> CallResult | None:
    """None when this call may send (and `held` says what it holds); else the outcome it gets instead,
    without sending: the outcome of another call sending the same approval, or what the key holds (its
    stored result, or why it cannot be used), each waited for until `until` less the answer's margin.
    The approval first, then the key: an approved call whose key was settled meanwhile (by another way
    into the API) ends with the key's outcome, never sent again."""
    key = ready.key
    try:
        claims = (approved is not None and not approved.claimed) or (key is not None and held.key is None)
        if held.store is not None and (claims or held.long is not None):  # once per claim taken here
            await held.store.hold_once(clock())  # a store that lost its data since: StoreLost, no send
        if approved is not None:
            mine = (
                approved.approval if approved.claimed else await approved.approvals.claim(approved.approval)
            )
            if mine is None:  # another call (on any instance) is sending it: its outcome is this one's
                other = await approved.approvals.wait(approved.approval.id, until.wait(math.inf))
                return await outcome(approved.approvals, other)
            held.approval, held.approvals = mine, approved.approvals
        if key is not None and held.key is None and held.store is not None:
            taken = await claim_key(
                held.store,
                key,
                held.owner,
                ready.fingerprint,
                lease=lease,
                ttl=ready.request.api.idempotency.ttl,
                until=until,
                clock=clock,
            )
            if isinstance(taken, CallResult):
                ready.request.trail.replayed = replayed(taken)
                return taken
            held.key = taken
    except StoreError as error:
        await held.give_back()
        return store_unavailable(error)
    return None


async def once(ready: Ready, held: Held, approved: Approved | None, files: Files, *, lease: float,
               until: Deadline, clock: Callable[[], float], cut: Stopping | None = None) -> CallResult:  # fmt: skip
    """Claim, send once, store: the one step by which the agent's call, the gateway's sender and a long
    call's background reach the API. A fault or cancellation once the claims are held leaves every
    one of them outcome unknown (or free again, when the request never went to the network). `cut`:
    the gateway's stop, whose drain ends this step when its time is up; the agent is then told the
    request was sent, outcome unknown (`DRAINED`), or `gateway-stopping` when it had not gone out."""
    with cut.sending() if cut is not None else anyio.CancelScope() as scope:
        known = await step("call.claim", claim(ready, held, approved, lease=lease, until=until, clock=clock))
        if known is not None and known.code is ErrorCode.CALL_PENDING and held.approval is not None:
            await held.give_back()  # the key is another way's, still on the wire: the approval waits
            return known
        if known is not None:
            return await store(held, known, clock=clock)
        try:
            result = await step("call.send", send(ready, held, files))
        except BaseException:  # cancelled (the call deadline, the drain), or a fault mid-send: maybe sent
            await abandon(held)
            raise
        return await step("call.store", store(held, result, clock=clock))
    assert scope.cancelled_caught  # cut by the drain: its claims were given up (`abandon`)
    with anyio.CancelScope(shield=True):
        await held.give_back()  # cut during the claim: nothing was sent
    return DRAINED if held.sent else STOPPING


async def send(ready: Ready, held: Held, files: Files) -> CallResult:
    """Step 7: the one request built and sent once (call/), and a binary answer kept as a file of the
    caller. A request that cannot be built (a header value that cannot be a header, say) is refused
    naming the field: nothing is sent, and the claims held are given back as such in step 8."""
    caller, planned = ready.request.caller, ready.planned
    try:
        outgoing = caller.build(
            planned.plan,
            ready.arguments,
            ready.credential,
            ready.attachments,
            selection=ready.selection,
            also_bound=tuple(planned.key_binding.values()),
        )
    except CallError as error:
        return CallResult(error.message, is_error=True, code=error.code)
    held.sent = True
    return await files.keep_answer(ready.request.owner, await sent(ready, outgoing))


async def store(held: Held, result: CallResult, *, clock: Callable[[], float]) -> CallResult:
    """Step 8: the outcome kept once, serialised once, wherever this call holds a claim: the approval,
    then the long call's result with its `call.completed` event (one store step), then the key. A
    store that fails here gives `store-unavailable`, saying whether the request was sent."""
    if held.approval is None and held.long is None and held.key is None:
        return result
    data = result_json(result)
    try:
        with anyio.CancelScope(shield=True):  # a result that arrived is kept, whatever happens now
            if held.approval is not None and held.approvals is not None:
                await held.approvals.finish(held.approval, data, settle=held.settle, announce=held.announce)
            if held.long is not None:
                await held.long.keep(result, data)
            if held.key is not None and held.store is not None:
                await record(held.store, held.key, held.owner, result, data, clock())
    except StoreError as error:
        failed = store_unavailable(error, sent=result if held.sent else None)
        if held.long is not None:  # who asks for the long call later gets this, too
            held.long.result = failed
            held.long.done.set()
        return failed
    return result


async def abandon(held: Held) -> None:
    """A fault or cancellation after the claim: every held claim becomes outcome unknown, or, when the
    request never went to the network, is given back (the key free, the approval approved again)."""
    with anyio.CancelScope(shield=True):
        if not held.sent and held.long is None:
            await held.give_back()
            return
        try:
            if held.approval is not None and held.approvals is not None:
                await held.approvals.abandon(held.approval)
            if held.long is not None:
                await held.long.abandon()
            if held.key is not None and held.store is not None:
                await held.store.abandon(held.key, held.owner, sent=held.sent)
        except StoreError as error:
            log_event("claims not given up: the store failed", level=logging.ERROR, code=str(error.code))
        held.key, held.approval = None, None
