"""`approvals.send: on_answer` (the default): an approved call is sent as soon as it is approved, by the
gateway, even when its agent stopped waiting (PRODUCT §5.1: approve it and the call is made). No MCP.

    sender = ApprovedSender(...)       # one per gateway process (`CallService.sender`)
    await sender.run(served)           # until cancelled: sweep the store's approved calls every
                                       # `poll` seconds, at once when this process approved one

A sweep reads the store's `approved` approvals (any instance's, or the command line's answered while
no gateway ran) and sends each one the way the agent's call would have, from the record alone: the
arguments and client it names are planned, checked and resolved again (the credential is had now: a
token from the approval's time may have expired), and the call's fingerprint must be the approval's
(a reload that changed the operation or a binding leaves the approval to the agent's next call, which
asks again). Then the approval's own claim decides who sends: of every sender and every agent's call
on every instance, one; an approval a call of this process waits on is left to that call. The result
is kept on the approval (`done`, or `failed` for an error) without settling it: the agent's next
identical call or `get_call_result` with the approval id gets it, and a client webhook subscribed to
`call.completed` is told in the same store step. Each send writes its audit line (`background`).

What stops a send before its claim (an unreadable secret, an account not connected, a file gone) sends
nothing: the approval stays approved, is logged once, and is tried again a minute later.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from typing import Any, Protocol

import anyio
import anyio.abc

from .._logging import log_event, monotonic
from ..approvals import client_receiver
from ..call import Caller, CallResult
from ..config import ApiConfig, Config
from ..files import Files
from ..grants import Grants
from ..store import Announcement, Approval, Status, StoreError, StoreLost
from ..tools import ToolSet
from ._access import audit
from ._approval import outcome
from ._approving import ApprovalService
from ._idempotency import key_plan, served_bindings
from ._long_calls import CALL_COMPLETED, iso
from ._once import Held, abandon, send, store
from ._request import CallRequest, Planned, Ready
from ._resolving import check, resolve
from ._stopping import Stopping
from ._waits import Deadline

Json = Any
POLL = 2.0  # seconds between sweeps (an approval given on this instance starts one at once)
BATCH = 100  # approved calls read per sweep, oldest of them first
PARALLEL = 8  # sends at once per process
RETRY = 60.0  # seconds before a call that could not be made ready is tried again


class Served(Protocol):
    """One API as the gateway serves it now (the gateway's `ApiState`)."""

    @property
    def api(self) -> ApiConfig: ...
    @property
    def caller(self) -> Caller: ...
    @property
    def toolset(self) -> ToolSet: ...


def offers_approval_results(api: ApiConfig) -> bool:
    """Whether calls of `api` may end while nobody waits: an approved call sent by the gateway, whose
    result `get_call_result` gives by the approval id."""
    return api.approvals.send == "on_answer" and any(tool.requires_approval for tool in api.tools.values())


def completed_events(config: Config, approval: Approval, now: float) -> list[Announcement]:
    """`call.completed` for the webhook of the client whose call it is, when it subscribed: the approval
    id as the call id, and the result as the agent gets it; in the approval's own stream, after its
    `approval.answered`."""
    client = config.clients.get(approval.client)
    hook = client.webhook if client is not None else None
    if hook is None or CALL_COMPLETED not in hook.events:
        return []
    event = {
        "call_id": approval.id,
        "approval": approval.id,
        "api": approval.api,
        "tool": approval.tool,
        "client": approval.client,
        "status": str(approval.status),
        "result": approval.result,
    }
    receiver = client_receiver(approval.client)
    payload = {"type": CALL_COMPLETED, "timestamp": iso(now), "data": event}
    return [Announcement(CALL_COMPLETED, payload, now, receiver, f"{receiver}|approval:{approval.id}")]


async def approval_result(
    approvals: ApprovalService, api: str, client: str | None, call_id: str, *, wait: float
) -> CallResult | None:
    """`get_call_result` with an approval id of the caller's own (None: not one): the outcome once
    there (then handed out: settled), waiting up to `wait` seconds while it is pending or being sent."""
    store_ = approvals.store
    found = await store_.get_approval(call_id) if store_ is not None else None
    if found is None or (found.api, found.client) != (api, client or ""):
        return None
    desk = approvals.approvals_for(api)
    approval = await desk.wait(found.id, wait, sends=False)  # the gateway's sender sends it
    return await outcome(desk, approval)


class ApprovedSender:
    """Sends the approved calls nobody is sending, for one gateway process."""

    def __init__(
        self,
        approvals: ApprovalService,
        files: Files,
        grants: Grants,
        config: Callable[[], Config],
        *,
        deadline: float,
        owner: str,
        clock: Callable[[], float] = time.time,
        poll: float = POLL,
    ) -> None:
        self._approvals = approvals
        self._files = files
        self._grants = grants
        self._config = config
        self.deadline = deadline
        self.owner = owner
        self.clock = clock
        self.poll = poll
        self._nudged = anyio.Event()
        self._busy: set[str] = set()  # approval ids being sent by this sender now
        self._later: dict[str, float] = {}  # approval id -> when (monotonic) to look at it again
        self._said: set[str] = set()  # approval ids whose `_later_on` was logged
        self._limit = anyio.CapacityLimiter(PARALLEL)
        self.stopping = Stopping()  # the call service's: at a stop, no new send; those started finish
        approvals.approved = self.nudge

    def nudge(self) -> None:
        """An approval was given in this process: sweep now."""
        self._nudged.set()

    async def run(self, served: Callable[[], Mapping[str, Served]]) -> None:
        """Sweep until cancelled (the sends running then become outcome unknown in the store)."""
        async with anyio.create_task_group() as tasks:
            while True:
                self._nudged = anyio.Event()
                try:
                    await self.sweep(served, tasks)
                except StoreError as error:
                    log_event(
                        "approved calls not swept: the store failed",
                        level=logging.WARNING,
                        code=str(error.code),
                    )
                except Exception:  # never the end of the gateway: the next sweep tries again
                    log_event("approved calls not swept", level=logging.ERROR, exc_info=True)
                with anyio.move_on_after(self.poll):
                    await self._nudged.wait()

    async def sweep(
        self, served: Callable[[], Mapping[str, Served]], tasks: anyio.abc.TaskGroup | None = None
    ) -> int:
        """Start sending every approved call due here (in `tasks`, else one after another, awaited);
        how many were started."""
        opened, config = self._approvals.store, self._config()
        if opened is None or not any(offers_approval_results(api) for api in config.apis.values()):
            return 0
        if self.stopping.stopping:  # the gateway stops: another instance (or this one, restarted) sends
            return 0
        now, started = monotonic(), 0
        self._later = {key: when for key, when in self._later.items() if when > now}
        for approval in reversed(await opened.list_approvals(Status.APPROVED, BATCH)):
            if approval.id in self._busy or approval.id in self._later:
                continue
            if self._approvals.waiting[approval.id] or config.approvals_for(approval.api).send != "on_answer":
                continue
            self._busy.add(approval.id)
            started += 1
            if tasks is None:
                await self._send(approval, served)
            else:
                tasks.start_soon(self._send, approval, served)
        return started

    async def _send(self, approval: Approval, served: Callable[[], Mapping[str, Served]]) -> None:
        try:
            with self.stopping.busy():  # a stop waits for it (`CallService.drain`)
                async with self._limit:
                    await self.send(approval, served())
        except Exception:  # a fault here must not stop the sweeps: the claim (if taken) reads as unknown
            log_event("approved call failed inside the gateway", level=logging.ERROR, exc_info=True,
                approval=approval.id, api=approval.api, tool=approval.tool)  # fmt: skip
        finally:
            self._busy.discard(approval.id)

    async def send(self, approval: Approval, served: Mapping[str, Served]) -> CallResult | None:
        """Send one approved call once (None: not sent by this sender: someone else claimed it, or it
        cannot be made ready here now)."""
        ready = await self._ready(approval, served)
        if ready is None:
            return None
        approvals = self._approvals.approvals_for(approval.api)
        marked = self._approvals.store
        if marked is not None:
            try:  # a store that lost its data since this gateway marked it: nothing is sent (_marker)
                await marked.hold_once(self.clock())
            except StoreLost as error:
                log_event("approved call not sent", level=logging.WARNING, approval=approval.id,
                    reason=error.message)  # fmt: skip
                return None
        mine = await approvals.claim(approval)
        if mine is None:  # another sender, or the agent's call, has it
            return None
        config = self._config()
        held = Held(self._approvals.store, self.owner, approval=mine, approvals=approvals, settle=False)
        held.announce = lambda finished, now: completed_events(config, finished, now)
        try:
            result = await send(ready, held, self._files)
        except BaseException:
            await abandon(held)
            raise
        result = await store(held, result, clock=self.clock)
        audit(ready.request, result, background=True)
        log_event("approved call sent", approval=approval.id, api=approval.api, tool=approval.tool,
            client=approval.client or None, status=result.status,
            error=str(result.code) if result.is_error else None)  # fmt: skip
        return result

    async def _ready(self, approval: Approval, served: Mapping[str, Served]) -> Ready | None:
        """The approved call made ready to send from its record, as the agent's call made it; None
        (logged, tried again later) when it cannot be, or is not the call that was approved."""
        state = served.get(approval.api)
        tool = state.toolset.get(approval.tool) if state is not None else None
        client = self._config().clients.get(approval.client) if approval.client else None
        if state is None or tool is None or (approval.client and client is None):
            self._later_on(approval, "its API, tool or client is not served here")
            return None
        request = CallRequest(
            state.api, state.caller, tool, client, approval.arguments, Deadline.after(self.deadline)
        )
        request.trail.approval = approval.id
        planned = _planned(request, approval)
        checked = await check(planned)
        if isinstance(checked, CallResult):
            self._later_on(approval, "its arguments no longer pass the tool's check", checked)
            return None
        ready = await resolve(planned, checked, self._files, self._grants)
        if isinstance(ready, CallResult):
            self._later_on(approval, "what it needs cannot be had now", ready)
            return None
        if ready.fingerprint != approval.fingerprint:
            self._later_on(approval, "the call changed since it was approved (a reload)")
            return None
        return ready

    def _later_on(self, approval: Approval, why: str, refused: CallResult | None = None) -> None:
        """Not sent now: looked at again in a minute; said once per approval and process."""
        first = approval.id not in self._said
        if len(self._said) >= 10_000:  # bounded: at worst a line is said again
            self._said.clear()
        self._said.add(approval.id)
        self._later[approval.id] = monotonic() + RETRY
        if first:
            log_event("approved call not sent yet", level=logging.WARNING, approval=approval.id,
                api=approval.api, tool=approval.tool, why=why,
                code=str(refused.code) if refused is not None and refused.code else None)  # fmt: skip


def _planned(request: CallRequest, approval: Approval) -> Planned:
    """Step 1 for a call made from its approval: the approval's arguments (the agent's key was never
    kept), and the derived key of the document's own key field, which the approval keeps among its
    bound values, bound again so the API deduplicates as it would have."""
    keys = key_plan(request.api, request.tool)
    target = keys.target if keys is not None else None
    binding = {target: approval.bound[target]} if target is not None and target in approval.bound else {}
    bindings = served_bindings(keys, request.bindings) if binding else request.bindings
    plan = request.caller.plan(request.tool, bindings)
    return Planned(request, plan, approval.arguments, None, binding)
