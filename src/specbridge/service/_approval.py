"""Step 5 of a call whose plan `requires_approval`: the approval as a value (PRODUCT §5.1).

    approve(ready, approvals, answer, asked=…, until=…) ->
        Approved      a person said yes: the call goes on to the claim (step 6)
        Question      approvals.by: client: ask the client's user (the adapter asks; `resume` goes on)
        CallResult    pending (awaits a person; nothing was sent), rejected, expired, or an outcome
                      another call of the same approval already had (done, outcome unknown)

The record is stored (or attached to: the same call, by its fingerprint) before anyone is asked, so an
operator, the client's user through another try, and other instances all answer the same approval.
Nothing here sends or claims anything: whatever happens here, the call was not sent.
"""

from __future__ import annotations

import dataclasses
import logging
import math
from dataclasses import dataclass

from .._errors import ErrorCode
from .._logging import log_event, monotonic
from ..approvals import FINISHED, ApprovalError, Approvals, ago, iso, log_answer
from ..call import CallResult
from ..store import Approval, Status
from ._asking import question
from ._long_calls import GET_CALL_RESULT
from ._request import Answer, Checked, Question, Ready
from ._results import result_from_json
from ._waits import MARGIN, SEND_MARGIN

SENT = frozenset({Status.DONE, Status.FAILED, Status.OUTCOME_UNKNOWN})  # it went out (or may have)
TOO_LARGE = (
    " Its values are too many or too long to show the client's user, so an operator answers it instead "
    "of the user."
)


@dataclass(frozen=True, slots=True)
class Approved:
    """A person approved this very call: it may be claimed and sent once."""

    approval: Approval
    approvals: Approvals
    claimed: bool = False  # its execution is this caller's already (the sender claims before it sends)


async def approve(
    ready: Checked | Ready,
    approvals: Approvals,
    answer: Answer | None,
    *,
    asked: bool,
    until: float | None,
    found: Approval | None = None,
    repeat_of: str | None = None,
) -> Approved | Question | CallResult:
    """The approval of `ready`'s call, as it stands once a person answered or the wait ended. `answer`:
    the client's user's answer (a 2026-07-28 retry's, or the elicitation's); `asked`: the user was
    asked during this call already; `until`: when the wait ends (monotonic; None: from the settings).
    `found`: the open approval the ledger's look-up found (else one is made, naming `repeat_of`)."""
    request = ready.request
    settings = approvals.settings
    client = request.principal
    approval = found or await approvals.request(
        request.api.name,
        request.tool.name,
        client,
        ready.planned.arguments,
        ready.bound,
        fingerprint=ready.fingerprint,
        key=ready.key,
        repeat_of=repeat_of,
    )
    request.trail.approval = approval.id  # for the audit line
    if until is None:
        # What is left after the wait must hold the send, unless it goes on in the background.
        keep = MARGIN if request.api.calls.long else ready.planned.plan.timeout + SEND_MARGIN
        until = monotonic() + request.deadline.wait(settings.wait, keep=keep)
    by_user = settings.by == "client" and request.asking.can_ask
    too_large = False
    if approval.status is Status.PENDING and by_user and answer is not None:
        approval = await _answer(approvals, approval, request.client_id, answer)
    elif approval.status is Status.PENDING and by_user and not asked:
        text = question(request.api.name, request.tool.name, ready.planned.arguments, ready.bound)
        if text is not None:
            return Question(text, approval.id, until, ready)
        too_large = True
        log_event(
            "approval too large to show the client's user; an operator answers it",
            level=logging.WARNING,
            api=request.api.name,
            tool=request.tool.name,
            client=client,
            approval=approval.id,
        )
    if approval.status is Status.PENDING:  # a person's answer
        approval = await approvals.wait(approval.id, max(0.0, until - monotonic()))
    if approval.status is Status.EXECUTING:  # another's send: its outcome is this call's
        # One of this process (its background sender, another call) ends within its upstream timeout:
        # wait for it within the deadline (`calls.wait` for a long call's API). Another instance's
        # (alive or not) within `approvals.wait`.
        mine = approval.owner == approvals.owner
        longest = request.api.calls.wait if request.api.calls.long else math.inf
        left = request.deadline.wait(longest) if mine else max(0.0, until - monotonic())
        approval = await approvals.wait(approval.id, left)
    if approval.status is Status.APPROVED:
        return Approved(approval, approvals)
    return await outcome(approvals, approval, note=TOO_LARGE if too_large else "")


def already_sent(approval: Approval, now: float) -> str:
    """What a sent approval's outcome says to a call that did not send it: when it was sent, under
    which approval, and that it is not sent again."""
    finished = approval.finished_at or approval.created_at
    return (
        f"This call was already sent {ago(now - finished)} ({iso(finished)}), once approved (approval "
        f"{approval.id}); this is its outcome, and it is not sent again. "
    )


def _noted(result: CallResult, note: str) -> CallResult:
    """`result` with `note` before its text (its structured content, status and code as they are)."""
    return dataclasses.replace(result, text=note + result.text)


async def outcome(approvals: Approvals, approval: Approval, *, note: str = "") -> CallResult:
    """What an agent gets for an approval that does not (or no longer) let its call be sent by it:
    still pending or being sent by another call, or a final outcome, which settles the approval (an
    identical call then gets a sent one's outcome again within `approvals.repeat_window`, and asks a
    person again after it, or at once after a rejection or an expiry)."""
    if approval.status in (Status.PENDING, Status.EXECUTING, Status.APPROVED):
        on_answer = approvals.settings.send == "on_answer"
        if approval.status is Status.PENDING:
            when = "The gateway sends it as soon as it is approved: c" if on_answer else "C"
            what = (
                f"awaits a person's approval; nothing was sent. {when}all the tool again with the same "
                "arguments later to get the outcome (it will not be asked twice)"
            )
        else:
            what = (
                "was approved and is being sent; call the tool again with the same arguments for its result"
            )
        also = f", or {GET_CALL_RESULT} with call_id {approval.id}" if on_answer else ""
        return CallResult(
            f"this call {what}{also} (approval {approval.id}).{note}",
            is_error=True,
            code=ErrorCode.APPROVAL_PENDING,
            handle=approval.id if on_answer else None,  # get_call_result (and a task) can follow it
        )
    await approvals.settle(approval)
    if approval.status in FINISHED:
        return _noted(result_from_json(approval.result), already_sent(approval, approvals.clock()))
    if approval.status is Status.REJECTED:
        return CallResult(
            f"a person rejected this call: {approval.reason}. Nothing was sent; redraft the call if the "
            f"reason allows (each new call asks a person again) (approval {approval.id})",
            is_error=True,
            code=ErrorCode.APPROVAL_REJECTED,
        )
    if approval.status is Status.EXPIRED:
        return CallResult(
            f"nobody answered this call's approval before it expired; nothing was sent. Calling again "
            f"asks a person again, as a new approval (approval {approval.id})",
            is_error=True,
            code=ErrorCode.APPROVAL_EXPIRED,
        )
    return CallResult(
        "this approved call was sent, but its outcome was not recorded (the gateway stopped during the "
        "call); it will not be sent again. Check the API's state before asking again "
        f"(approval {approval.id})",
        is_error=True,
        code=ErrorCode.APPROVAL_OUTCOME_UNKNOWN,
    )


def not_now(approval: Approval, why: CallResult) -> CallResult:
    """An approved call this call could not send now (`why`: its token, file or secret cannot be had):
    still approved, sent by whoever can (the gateway's sender, the next identical call)."""
    return CallResult(
        f"this call was approved and is waiting to be sent; it could not be sent by this call now "
        f"({why.code}). Call the tool again with the same arguments, or {GET_CALL_RESULT} "
        f"with call_id {approval.id}, for its outcome (approval {approval.id}).",
        is_error=True,
        code=ErrorCode.APPROVAL_PENDING,
    )


async def _answer(approvals: Approvals, approval: Approval, client: str | None, answer: Answer) -> Approval:
    """The client's user's answer, recorded as theirs (`client:<id>`); an answer given meanwhile (by an
    operator, or through another try) stands."""
    by = f"client:{client or 'anonymous'}"
    try:
        if answer == "accept":
            answered = await approvals.approve(approval.id, by)
        else:
            what = "declined" if answer == "decline" else "dismissed without answering"
            answered = await approvals.reject(approval.id, by, f"the client's user {what} the call")
    except ApprovalError as error:
        return error.approval or await approvals.get(approval.id)
    log_answer(answered, by, "approve" if answer == "accept" else "reject", "client")
    return answered
