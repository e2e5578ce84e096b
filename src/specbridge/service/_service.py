"""The call service: the life of one call of a document tool as one straight line of steps, each a
function that returns a value (the next step's input, or the call's result), with no MCP (PRODUCT §4,
§5.1). The adapter (gateway/) hands in a `CallRequest` and gets a `CallResult`, or a `Question` for the
client's user, which it asks and hands back (`resume`).

      admit     _access.admit       the caller's tool access (else "unknown tool"), its rate limits
    1 plan      _planning.plan      what the config decides, looked up once; the idempotency key apart
    2 check     _resolving.check    the arguments, once (large ones in the check worker)
    3 resolve   _resolving.resolve  files, bindings, the caller's credential (an OAuth token: grants/)
    4 look up   CallService.look_up the call's fingerprint: the same long call running here, a key's result
    5 approve   _approval.approve   a person's answer as a value: approved, pending, rejected, a question
    6 claim     _once.claim         the key, the approval's execution: only after it can an outcome be unknown
    7 send      _once.send          the one request built (refused naming a field it cannot send), sent once
    8 store     _once.store         the result serialised once: approval, long call (+ call.completed), key
      audit     _access.audit       the audit line, whatever the end (a background end has its own)

Admit comes first, so a tool the caller may not use says nothing of itself (not even a malformed
key). Long calls run 6-8 in the background (`_long_calls`); nothing before 6 runs there. Under
`approvals.send: on_answer` the gateway's sender (`_sending`) runs 1-3 and 6-8 for an approved call
nobody waits for, from its approval's record. A call with no
key, no approval, no long call and no rate limit never touches the store.

When the gateway stops (`drain`), a call that has sent nothing (steps admit-5, and any new call) ends
at once with `gateway-stopping`; a call past its claim finishes and stores its outcome (`_stopping`).
"""

from __future__ import annotations

import math
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

import anyio

from .._errors import ErrorCode
from .._logging import monotonic
from .._telemetry import step, traced
from ..approvals import ApprovalError
from ..call import CallResult
from ..config import ApiConfig, Config
from ..files import Files
from ..grants import Grants
from ..store import Store, StoreError
from ._access import admit, audit
from ._approval import Approved, approve
from ._approving import ApprovalService
from ._idempotency import look_up, replayed
from ._long_calls import LongCalls, Running
from ._once import Held, abandon, claim, send, store
from ._planning import plan
from ._request import Answer, CallRequest, Question, Ready
from ._resolving import check, resolve
from ._results import store_unavailable
from ._sending import ApprovedSender, Served, approval_result, offers_approval_results
from ._stopping import STOPPING, Stopping
from ._waits import MARGIN, Deadline

Json = Any
LEASE_MARGIN = 10.0  # what a claim's lease adds to the longest the send can take
T = TypeVar("T")


class CallService:
    """Runs the calls of one gateway: the steps above, the store they need, the long calls running."""

    def __init__(
        self,
        approvals: ApprovalService,
        files: Files,
        config: Callable[[], Config],
        *,
        deadline: float,
        clock: Callable[[], float] = time.time,
    ) -> None:
        """`deadline`: the gateway's limit on one call (a claim's lease outlasts it)."""
        self._approvals = approvals
        self.files = files
        self._config = config
        self.deadline = deadline
        self.clock = clock
        self.owner = secrets.token_hex(8)
        self.stopping = Stopping()  # `drain`: waits that send nothing end, new calls are refused
        self.long = LongCalls(config, self.owner, clock=clock, stopping=self.stopping)
        self.grants = Grants(lambda: approvals.open(config()), clock=clock)  # OAuth tokens toward the APIs
        # approvals.send: on_answer: approved calls sent by the gateway (`run_approved`)
        self.sender = ApprovedSender(
            approvals, files, self.grants, config, deadline=deadline, owner=self.owner, clock=clock
        )
        self.sender.stopping = self.stopping  # a stop: no new send, those started finish (`drain`)

    async def call(self, request: CallRequest) -> CallResult | Question:
        """One call, from its plan to its stored result (or the question its client's user is asked)."""
        with self.stopping.busy():
            return await _audited(request, self._line(request))

    async def _line(self, request: CallRequest) -> CallResult | Question:
        if self.stopping.stopping:
            return STOPPING
        ready = await self._cut(self._ready(request))
        if isinstance(ready, CallResult):
            return ready
        return await self._on_the_store(ready, request.asking.answer, asked=False, until=None)

    async def _ready(self, request: CallRequest) -> Ready | CallResult:
        """Admit, plan, check, resolve: the call ready to be sent, or why it is not."""
        limits = self._config().rate_limits
        if (
            refused := await step("call.admit", admit(request, limits, self._store, self.clock()))
        ) is not None:
            return refused
        if isinstance(planned := traced("call.plan", plan, request), CallResult):
            return planned
        if isinstance(checked := await step("call.check", check(planned)), CallResult):
            return checked
        return await step("call.resolve", resolve(planned, checked, self.files, self.grants))

    async def _cut(self, work: Awaitable[T]) -> T | CallResult:
        """`work`, which sends nothing, or `gateway-stopping` when the gateway stops meanwhile."""
        with self.stopping.cut():
            return await work
        return STOPPING

    async def resume(self, question: Question, answer: Answer | None) -> CallResult:
        """The call a `Question` stopped, once its user answered (`answer`), or did not in time (None)."""
        with self.stopping.busy():
            outcome = await _audited(
                question.ready.request,
                self._on_the_store(question.ready, answer, asked=True, until=question.until),
            )
        assert not isinstance(outcome, Question)  # a user asked once is never asked again in one call
        return outcome

    async def until_answered(self, question: Question) -> None:
        """Returns once the question's approval is answered by anyone (or its wait ends). A store that
        fails meanwhile is not an answer: the user may still answer, and `resume` then says what the
        store allows (`store-unavailable`)."""
        approvals = self._approvals.approvals_for(question.ready.request.api.name)
        try:
            await approvals.wait(question.approval, max(0.0, question.until - monotonic()))
        except StoreError:
            await anyio.sleep(max(0.0, question.until - monotonic()))

    async def _on_the_store(
        self, ready: Ready, answer: Answer | None, *, asked: bool, until: float | None
    ) -> CallResult | Question:
        """Steps 4-8: what happens around the store, for a call that is ready to be sent."""
        request, approval = ready.request, ready.planned.plan.requires_approval
        long = request.api.calls.long
        if ready.planned.key is None and not approval and not long:  # nothing to claim or to keep
            return await step("call.send", send(ready, Held(), self.files))
        opened = await self._store()
        if isinstance(opened, CallResult):
            return opened
        found = await step("call.look_up", self.look_up(ready, opened))
        if found is not None:
            return found
        approved = None
        if approval:
            decision = await step(
                "call.approve", self._cut(self._approve(ready, answer, asked=asked, until=until))
            )
            if not isinstance(decision, Approved):
                return decision
            approved = decision
        held = Held(opened, self.owner)
        if not long:
            return await self._once(ready, held, approved, budget=request.deadline.wait(math.inf))

        async def background(running: Running) -> CallResult:
            held.long = running
            result = await self._once(ready, held, approved, budget=ready.planned.plan.timeout + MARGIN)
            audit(request, result, background=True)  # the call's own line said `call-pending`
            return result

        return await self.long.start(
            opened,
            request.scope,
            ready.fingerprint,
            background,
            lease=self._lease(ready),
            keep=request.api.idempotency.ttl,
            wait=request.deadline.wait(request.api.calls.wait),
        )

    async def look_up(self, ready: Ready, opened: Store) -> CallResult | None:
        """Step 4: by the call's fingerprint, the same long call running on any instance sharing the
        store (its result), and, for a key whose call would wait for a person or run long first, the
        key's stored result or why it is spent. A key alone is looked up by its claim (step 6): one
        store step, not two."""
        request, long = ready.request, ready.request.api.calls.long
        if long:
            wait = request.deadline.wait(request.api.calls.wait)
            try:
                running = await self.long.attach(opened, request.scope, ready.fingerprint, wait=wait)
            except StoreError as error:
                return store_unavailable(error)
            if running is not None:
                return running
        key = ready.planned.key
        if key is None or not (ready.planned.plan.requires_approval or long):
            return None
        try:
            found = await look_up(opened, request.scope, key, ready.fingerprint, self.clock())
        except StoreError as error:
            return store_unavailable(error)
        request.trail.replayed = found is not None and replayed(found)
        return found

    async def _approve(
        self, ready: Ready, answer: Answer | None, *, asked: bool, until: float | None
    ) -> Approved | Question | CallResult:
        """Step 5, on this API's approvals."""
        try:
            approvals = self._approvals.approvals_for(ready.request.api.name)
            return await approve(ready, approvals, answer, asked=asked, until=until)
        except StoreError as error:
            return store_unavailable(error)
        except ApprovalError as error:
            return CallResult(error.message, is_error=True, code=error.code)

    async def _once(
        self, ready: Ready, held: Held, approved: Approved | None, *, budget: float
    ) -> CallResult:
        """Steps 6-8: claim, send once, store."""
        known = await step(
            "call.claim",
            claim(ready, held, approved, lease=self._lease(ready), budget=budget, clock=self.clock),
        )
        if known is not None:
            return await store(held, known, clock=self.clock)
        try:
            result = await step("call.send", send(ready, held, self.files))
        except BaseException:  # cancelled (the call deadline), or a fault mid-send: it may have been sent
            await abandon(held)
            raise
        return await step("call.store", store(held, result, clock=self.clock))

    def _lease(self, ready: Ready) -> float:
        """How long a claim of this call is its owner's before it reads as outcome unknown."""
        return self.deadline + ready.planned.plan.timeout + LEASE_MARGIN

    async def _store(self) -> Store | CallResult:
        try:
            return await self._approvals.open(self._config())
        except StoreError as error:
            return store_unavailable(error)

    async def result(
        self, api: ApiConfig, client: str | None, arguments: Mapping[str, Json], deadline: Deadline
    ) -> CallResult:
        """`get_call_result`: the result of the caller's own long call, by its id."""
        call_id = arguments.get("call_id")
        if not isinstance(call_id, str) or not 0 < len(call_id) <= 64:
            return CallResult(
                "invalid arguments: call_id: must be the call id a call-pending result gave",
                is_error=True,
                code=ErrorCode.ARGUMENTS_INVALID,
            )
        with self.stopping.busy():
            opened = await self._store()
            if isinstance(opened, CallResult):
                return opened
            wait = deadline.wait(api.calls.wait)
            try:
                found = await self.long.result(opened, api.name, client, call_id, wait=wait)
                if found.code is ErrorCode.CALL_NOT_FOUND and offers_approval_results(api):
                    approved = await approval_result(self._approvals, api.name, client, call_id, wait=wait)
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
        return calls_done and long_done

    async def aclose(self) -> None:
        """Stop the background calls (each becomes outcome unknown in the store)."""
        await self.long.aclose()
        await self.grants.aclose()


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
