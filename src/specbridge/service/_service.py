"""The call service: the life of one call of a document tool as one straight line of steps, each a
function that returns a value (the next step's input, or the call's result), with no MCP (PRODUCT §4,
§5.1). The adapter (gateway/) hands in a `CallRequest` and gets a `CallResult`, or a `Question` for the
client's user, which it asks and hands back (`resume`).

    access     _access.allowed     the caller's tool access (else "unknown tool")
    plan       _planning.plan      what the config decides, looked up once; the idempotency key apart
    check      _resolving.check    the arguments, once (large ones in the check worker)
    look up    _look_up.look_up    the ledger: what this logical call is now (its key, its approval,
                                   its running long call, its stored result); an answer ends here
    limits     _access.admit       rate limits, for a call the look-up found new only
    resolve    _resolving.resolve  files, bindings, the caller's credential (an OAuth token: grants/)
    approve    _approval.approve   a person's answer as a value: approved, pending, rejected, a question
    claim, send, store  _once.once the one step into the API, shared with the sender and long calls
    audit      _access.audit       the audit line, whatever the end (a background end has its own)

A call that attaches to an approval, a running long call or a stored result sends nothing new: it is
never counted by a rate limit and needs no file, token or account (an approved approval this call sends
itself resolves then; it was counted when the approval was made: once per logical call). Tool access
comes first, so a tool the caller may not use says nothing of itself (not even a malformed key). Long
calls run claim, send and store in the background (`_long_calls`); under `approvals.send: on_answer`
the gateway's sender (`_sending`) sends an approved call nobody waits for through the same step. A call
with no key, no approval, no long call and no rate limit never touches the store. One give-up time
for the whole call, its `Deadline`, fixed when it starts, ends every wait inside it.

When the gateway stops (`drain`), a call that has sent nothing (and any new call) ends at once with
`gateway-stopping`; a call past its claim finishes and stores its outcome (`_stopping`), and one still
on the wire when the drain's time is up answers `call-outcome-unknown`, saying it was sent (issue 31,
item 13).
"""

from __future__ import annotations

import math
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

import anyio

from .._errors import ErrorCode
from .._logging import monotonic
from .._telemetry import step, traced
from ..access import Identity
from ..approvals import ApprovalError
from ..call import CallResult
from ..config import ApiConfig, Config
from ..files import Files
from ..grants import Grants
from ..store import Store, StoreError
from ._access import admit, allowed, audit, limited
from ._approval import Approved, approve, not_now
from ._ledger import Ledger
from ._long_calls import LongCalls, Running
from ._look_up import New, Open, look_up
from ._once import Held, once, send
from ._planning import plan
from ._request import Answer, CallRequest, Checked, Question, Ready, principal_of
from ._resolving import check, resolve
from ._results import store_too_slow, store_unavailable, too_slow_to_resolve
from ._sending import ApprovedSender, Served, approval_result, offers_approval_results
from ._stopping import STOPPING, Stopping
from ._waits import MARGIN, Deadline

Json = Any
LEASE_MARGIN = 10.0  # what a claim's lease adds to the longest the send can take
CUT_GRACE = 1.0  # seconds the calls the drain cut have to record and say it (store steps are shielded)
T = TypeVar("T")


class CallService:
    """Runs the calls of one gateway: the steps above, on its ledger, the long calls running."""

    def __init__(
        self,
        ledger: Ledger,
        files: Files,
        config: Callable[[], Config],
        *,
        deadline: float,
        clock: Callable[[], float] = time.time,
    ) -> None:
        """`deadline`: the gateway's limit on one call (a claim's lease outlasts it)."""
        self.ledger = ledger
        self.files = files
        self._config = config
        self.deadline = deadline
        self.clock = clock
        self.stopping = Stopping()  # `drain`: waits that send nothing end, new calls are refused
        self.long = LongCalls(config, ledger.owner, clock=clock, stopping=self.stopping)
        self.grants = Grants(ledger.open, clock=clock)  # OAuth tokens toward the APIs
        # approvals.send: on_answer: approved calls sent by the gateway (`run_approved`)
        self.sender = ApprovedSender(
            ledger, files, self.grants, config, deadline=deadline, stopping=self.stopping, clock=clock
        )

    async def call(self, request: CallRequest) -> CallResult | Question:
        """One call, from its plan to its stored result (or the question its client's user is asked)."""
        with self.stopping.busy():
            return await _audited(request, self._line(request))

    async def _line(self, request: CallRequest) -> CallResult | Question:
        if self.stopping.stopping:
            return STOPPING
        if (refused := traced("call.admit", allowed, request)) is not None:
            return refused
        checked = await self._cut(_checked(request))
        if isinstance(checked, CallResult):
            return checked
        return await self._go_on(checked, request.asking.answer)

    async def _cut(self, work: Awaitable[T]) -> T | CallResult:
        """`work`, which sends nothing, or `gateway-stopping` when the gateway stops meanwhile."""
        with self.stopping.cut():
            return await work
        return STOPPING

    async def _go_on(self, checked: Checked, answer: Answer | None) -> CallResult | Question:
        """From the look-up on, for a checked call."""
        request, needs_approval = checked.request, checked.planned.plan.requires_approval
        now, limits = self.clock(), self._config().rate_limits
        if checked.key is None and not needs_approval and not request.api.calls.long:  # nothing to look up
            if limited(request, limits) and (refused := await self._limit(request, now)):
                return refused
            ready = await self._cut(self._resolve(checked))
            if isinstance(ready, CallResult):
                return ready
            return await step("call.send", send(ready, Held(), self.files))
        opened = await self._store()
        if isinstance(opened, CallResult):
            return opened
        found = await step("call.look_up", self._look_up(checked, opened))
        if isinstance(found, CallResult):
            return found
        if isinstance(found, Open):
            return await self._approved(checked, answer, asked=False, until=None, found=found)
        held = Held(opened, self.ledger.owner, key=found.key)
        refused = await self._limit(request, now) if limited(request, limits) else None
        ready = refused if refused is not None else await self._cut(self._resolve(checked))
        if isinstance(ready, CallResult):
            await held.give_back()  # nothing was sent: a key the look-up took is free again
            return ready
        if needs_approval:
            return await self._approved(ready, answer, asked=False, until=None, new=found)
        return await self._send(ready, held, None)

    async def _resolve(self, checked: Checked) -> Ready | CallResult:
        """Resolve, ended before the call's deadline (a token another instance is fetching, say)."""
        with anyio.move_on_after(checked.request.deadline.wait(math.inf, keep=MARGIN / 2)):
            return await step("call.resolve", resolve(checked, self.files, self.grants))
        return too_slow_to_resolve()

    async def _limit(self, request: CallRequest, now: float) -> CallResult | None:
        """Rate limits, for a call that will be sent or asked of a person (`_access.admit`)."""
        return await step("call.limits", admit(request, self._config().rate_limits, self._store, now))

    async def _look_up(self, checked: Checked, opened: Store) -> New | Open | CallResult:
        """The ledger's look-up, ended before the call's deadline whatever the store does (a pool
        waiting for a connection included): `store-unavailable` then, never `gateway-timeout`."""
        request = checked.request
        needs_approval = checked.planned.plan.requires_approval
        with anyio.move_on_after(request.deadline.wait(math.inf, keep=MARGIN / 2)):
            try:
                approvals = self.ledger.approvals_for(request.api.name) if needs_approval else None
                return await look_up(
                    checked,
                    opened,
                    approvals,
                    self.long,
                    owner=self.ledger.owner,
                    lease=self._lease(checked),
                    clock=self.clock,
                )
            except StoreError as error:
                return store_unavailable(error)
            except ApprovalError as error:
                return CallResult(error.message, is_error=True, code=error.code)
        return store_too_slow()

    async def resume(self, question: Question, answer: Answer | None) -> CallResult:
        """The call a `Question` stopped, once its user answered (`answer`), or did not in time (None)."""
        with self.stopping.busy():
            outcome = await _audited(
                question.ready.request,
                self._approved(question.ready, answer, asked=True, until=question.until),
            )
        assert not isinstance(outcome, Question)  # a user asked once is never asked again in one call
        return outcome

    async def until_answered(self, question: Question) -> None:
        """Returns once the question's approval is answered by anyone (or its wait ends). A store that
        fails meanwhile is not an answer: the user may still answer, and `resume` then says what the
        store allows (`store-unavailable`)."""
        approvals = self.ledger.approvals_for(question.ready.request.api.name)
        try:
            await approvals.wait(question.approval, max(0.0, question.until - monotonic()))
        except StoreError:
            await anyio.sleep(max(0.0, question.until - monotonic()))

    async def _approved(
        self,
        stage: Checked | Ready,
        answer: Answer | None,
        *,
        asked: bool,
        until: float | None,
        found: Open | None = None,
        new: New | None = None,
    ) -> CallResult | Question:
        """The approve step (on a found approval, or a new one), then, once approved, this call sends
        it: resolved now if it was not (it attached), claimed, sent, stored."""
        request = stage.request
        opened = await self._store()
        if isinstance(opened, CallResult):
            return opened
        try:
            approvals = self.ledger.approvals_for(request.api.name)
            decision = await step(
                "call.approve",
                self._cut(
                    approve(
                        stage,
                        approvals,
                        answer,
                        asked=asked,
                        until=until,
                        found=found.approval if found is not None else None,
                        repeat_of=new.repeat_of if new is not None else None,
                    )
                ),
            )
        except StoreError as error:
            return store_unavailable(error)
        except ApprovalError as error:
            return CallResult(error.message, is_error=True, code=error.code)
        if not isinstance(decision, Approved):
            return decision
        ready = stage if isinstance(stage, Ready) else await self._cut(self._resolve(stage))
        if isinstance(ready, CallResult):  # not sent by this call: the approval stays approved
            return not_now(decision.approval, ready)
        return await self._send(ready, Held(opened, self.ledger.owner), decision)

    async def _send(self, ready: Ready, held: Held, approved: Approved | None) -> CallResult:
        """Claim, send, store: in this call, or in the background for a long call."""
        request = ready.request
        lease = self._lease(ready.checked)
        if not request.api.calls.long:
            return await once(ready, held, approved, self.files, lease=lease, until=request.deadline,
                              clock=self.clock, cut=self.stopping)  # fmt: skip

        async def background(running: Running) -> CallResult:
            held.long = running
            until = Deadline.after(ready.planned.plan.timeout + 2 * MARGIN)
            result = await once(ready, held, approved, self.files, lease=lease, until=until, clock=self.clock)
            audit(request, result, background=True)  # the call's own line said `call-pending`
            return result

        assert held.store is not None
        return await self.long.start(
            held.store,
            request.scope,
            ready.fingerprint,
            background,
            lease=lease,
            keep=request.api.idempotency.ttl,
            wait=request.deadline.wait(request.api.calls.wait),
        )

    def _lease(self, checked: Checked) -> float:
        """How long a claim of this call is its owner's before it reads as outcome unknown."""
        return self.deadline + checked.planned.plan.timeout + LEASE_MARGIN

    async def _store(self) -> Store | CallResult:
        try:
            return await self.ledger.open()
        except StoreError as error:
            return store_unavailable(error)

    async def result(
        self,
        api: ApiConfig,
        client: str | None,
        arguments: Mapping[str, Json],
        deadline: Deadline,
        identity: Identity | None = None,
    ) -> CallResult:
        """`get_call_result`: the result of the caller's own long call (or approval), by its id.
        `identity`: who called over HTTP, so a token of no known client finds its own calls."""
        call_id = arguments.get("call_id")
        if not isinstance(call_id, str) or not 0 < len(call_id) <= 64:
            return CallResult(
                "invalid arguments: call_id: must be the call id a call-pending result gave",
                is_error=True,
                code=ErrorCode.ARGUMENTS_INVALID,
            )
        caller = client if identity is None else principal_of(identity.client, identity)
        with self.stopping.busy():
            opened = await self._store()
            if isinstance(opened, CallResult):
                return opened
            wait = deadline.wait(api.calls.wait)
            try:
                found = await self.long.result(opened, api.name, caller, call_id, wait=wait)
                if found.code is ErrorCode.CALL_NOT_FOUND and offers_approval_results(api):
                    approved = await approval_result(self.ledger, api.name, caller, call_id, wait=wait)
                    found = approved or found
            except StoreError as error:
                return store_unavailable(error)
            return found

    async def run_approved(self, served: Callable[[], Mapping[str, Served]]) -> None:
        """`approvals.send: on_answer`: send approved calls nobody waits for, until cancelled."""
        await self.sender.run(served)

    async def drain(self, seconds: float) -> bool:
        """The gateway stops: no new call, every wait that sends nothing ends (`gateway-stopping`), and
        the calls already sent, long ones too, finish and store their outcomes, for up to `seconds`.
        Whether they all did; `aclose` then makes what still runs outcome unknown."""
        self.stopping.stop()
        give_up = anyio.current_time() + seconds
        calls_done = await self.stopping.idle(seconds)
        long_done = await self.long.finish(max(0.0, give_up - anyio.current_time()))
        if not calls_done and self.stopping.cut_sends():  # each answers: sent, outcome unknown
            await self.stopping.idle(CUT_GRACE)
        return calls_done and long_done

    async def aclose(self) -> None:
        """Stop the background calls (each becomes outcome unknown in the store)."""
        await self.long.aclose()
        await self.grants.aclose()


async def _checked(request: CallRequest) -> Checked | CallResult:
    """Plan and check: what the config decides for the call, and its arguments checked once."""
    planned = traced("call.plan", plan, request)
    return planned if isinstance(planned, CallResult) else await step("call.check", check(planned))


async def _audited(request: CallRequest, line: Awaitable[CallResult | Question]) -> CallResult | Question:
    """`line`'s outcome, with the call's audit line written whatever the end: cut off by the gateway's
    deadline (`gateway-timeout`) or a fault (`gateway-internal`) too."""
    try:
        outcome = await line
    except BaseException as error:
        cut = isinstance(error, anyio.get_cancelled_exc_class())
        audit(request, ErrorCode.GATEWAY_TIMEOUT if cut else ErrorCode.GATEWAY_INTERNAL)
        raise
    audit(request, outcome)
    return outcome
