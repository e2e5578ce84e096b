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

At send time the sender checks again that the caller may still make the call (issue 31, item 6): the
client is still in the config, may still use the API, and its tool rules still allow the tool (a token
of no known client: the API still lets such tokens in). Otherwise nothing is sent and the approval ends
`failed` with `approval-access-revoked`. The send itself is the call service's one claim → send → store
step (`_once.once`): the approval's claim decides who sends, and the agent's idempotency key, which the
approval keeps, is claimed and its outcome recorded under it, as the agent's own call would.

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

from .._errors import ErrorCode
from .._logging import log_event, monotonic
from ..access import Identity
from ..approvals import Approvals, client_receiver
from ..call import Caller, CallResult
from ..config import ApiConfig, ClientConfig, Config
from ..files import Files
from ..grants import Grants
from ..store import Announcement, Approval, Status, StoreError, StoreLost
from ..tools import ToolSet
from ._access import audit
from ._approval import Approved, outcome
from ._idempotency import key_plan, served_bindings
from ._ledger import Ledger
from ._long_calls import CALL_COMPLETED, iso
from ._once import Held, once, result_json
from ._request import CallRequest, Planned, Ready
from ._resolving import check, resolve
from ._results import too_slow_to_resolve
from ._stopping import Stopping
from ._tool_access import tool_rules
from ._waits import MARGIN, Deadline

Json = Any
POLL = 2.0  # seconds between sweeps (an approval given on this instance starts one at once)
BATCH = 100  # approved calls read per sweep, oldest of them first
PARALLEL = 8  # sends at once per process
RETRY = 60.0  # seconds before a call that could not be made ready is tried again
LEASE_MARGIN = 10.0  # what a claim's lease adds to the longest the send can take (as the service's)


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
    ledger: Ledger, api: str, client: str | None, call_id: str, *, wait: float
) -> CallResult | None:
    """`get_call_result` with an approval id of the caller's own (None: not one): the outcome once
    there (then handed out: settled), waiting up to `wait` seconds while it is pending or being sent."""
    store_ = ledger.store
    found = await store_.get_approval(call_id) if store_ is not None else None
    if found is None or (found.api, found.client) != (api, client or ""):
        return None
    desk = ledger.approvals_for(api)
    approval = await desk.wait(found.id, wait, sends=False)  # the gateway's sender sends it
    return await outcome(desk, approval)


class ApprovedSender:
    """Sends the approved calls nobody is sending, for one gateway process."""

    def __init__(
        self,
        ledger: Ledger,
        files: Files,
        grants: Grants,
        config: Callable[[], Config],
        *,
        deadline: float,
        stopping: Stopping,
        clock: Callable[[], float] = time.time,
        poll: float = POLL,
    ) -> None:
        """`stopping`: the call service's: at a stop, no new send; those started finish."""
        self._ledger = ledger
        self._files = files
        self._grants = grants
        self._config = config
        self.deadline = deadline
        self.stopping = stopping
        self.clock = clock
        self.poll = poll
        self._busy: set[str] = set()  # approval ids being sent by this sender now
        self._later: dict[str, float] = {}  # approval id -> when (monotonic) to look at it again
        self._said: set[str] = set()  # approval ids whose `_later_on` was logged
        self._limit = anyio.CapacityLimiter(PARALLEL)

    async def run(self, served: Callable[[], Mapping[str, Served]]) -> None:
        """Sweep until cancelled (the sends running then become outcome unknown in the store); at once
        when this process approved a call (`Ledger.approved`)."""
        async with anyio.create_task_group() as tasks:
            while True:
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
                await self._ledger.approved.wait(self.poll)

    async def sweep(
        self, served: Callable[[], Mapping[str, Served]], tasks: anyio.abc.TaskGroup | None = None
    ) -> int:
        """Start sending every approved call due here (in `tasks`, else one after another, awaited);
        how many were started."""
        opened, config = self._ledger.store, self._config()
        if opened is None or not any(offers_approval_results(api) for api in config.apis.values()):
            return 0
        if self.stopping.stopping:  # the gateway stops: another instance (or this one, restarted) sends
            return 0
        now, started = monotonic(), 0
        self._later = {key: when for key, when in self._later.items() if when > now}
        for approval in reversed(await opened.list_approvals(Status.APPROVED, BATCH)):
            if approval.id in self._busy or approval.id in self._later:
                continue
            if self._ledger.waiting[approval.id] or config.approvals_for(approval.api).send != "on_answer":
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
        config = self._config()
        approvals = self._ledger.approvals_for(approval.api)
        revoked = access_revoked(config, approval, served)
        if revoked is not None:
            return await self._refused(approvals, approval, revoked)
        ready = await self._ready(approval, served)
        if ready is None:
            return None
        held = Held(self._ledger.store, self._ledger.owner, settle=False)
        held.announce = lambda finished, now: completed_events(config, finished, now)
        if held.store is not None:
            try:  # a store that lost its data since this gateway marked it: nothing is sent (_marker)
                await held.store.hold_once(self.clock())
            except StoreLost as error:
                log_event("approved call not sent", level=logging.WARNING, approval=approval.id,
                    reason=error.message)  # fmt: skip
                return None
        mine = await approvals.claim(approval)
        if mine is None:  # another sender, or the agent's call, has it
            return None
        request = ready.request
        until = Deadline.after(ready.planned.plan.timeout + 2 * MARGIN)
        lease = self.deadline + ready.planned.plan.timeout + LEASE_MARGIN
        result = await once(ready, held, Approved(mine, approvals, claimed=True), self._files,
                            lease=lease, until=until, clock=self.clock, cut=self.stopping)  # fmt: skip
        audit(request, result, background=True)
        log_event("approved call sent" if held.sent else "approved call settled", approval=approval.id,
            api=approval.api, tool=approval.tool, client=approval.client or None, status=result.status,
            error=str(result.code) if result.is_error else None)  # fmt: skip
        return result

    async def _refused(self, approvals: Approvals, approval: Approval, why: CallResult) -> CallResult | None:
        """The caller may no longer make this call: the approval ends failed with `why`, nothing sent
        (None when another sender or the agent's call claimed it first)."""
        mine = await approvals.claim(approval)
        if mine is None:
            return None
        config = self._config()
        await approvals.finish(mine, result_json(why), settle=False,
            announce=lambda finished, now: completed_events(config, finished, now))  # fmt: skip
        log_event("approved call refused: access revoked", level=logging.WARNING, approval=approval.id,
            api=approval.api, tool=approval.tool, client=approval.client or None)  # fmt: skip
        return why

    async def _ready(self, approval: Approval, served: Mapping[str, Served]) -> Ready | None:
        """The approved call made ready to send from its record, as the agent's call made it; None
        (logged, tried again later) when it cannot be, or is not the call that was approved."""
        state = served.get(approval.api)
        tool = state.toolset.get(approval.tool) if state is not None else None
        client = self._config().clients.get(approval.client) if approval.client else None
        if state is None or tool is None:
            self._later_on(approval, "its API or tool is not served here")
            return None
        request = CallRequest(
            state.api, state.caller, tool, client, approval.arguments, Deadline.after(self.deadline),
            identity=_identity(approval, client),
        )  # fmt: skip
        request.trail.approval = approval.id
        checked = await check(_planned(request, approval), approval.idempotency_key)
        if isinstance(checked, CallResult):
            self._later_on(approval, "its arguments no longer pass the tool's check", checked)
            return None
        if checked.fingerprint != approval.fingerprint:
            self._later_on(approval, "the call changed since it was approved (a reload)")
            return None
        ready: Ready | CallResult = too_slow_to_resolve()
        with anyio.move_on_after(self.deadline):  # a token another instance is fetching, say
            ready = await resolve(checked, self._files, self._grants)
        if isinstance(ready, CallResult):
            self._later_on(approval, "what it needs cannot be had now", ready)
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


def access_revoked(config: Config, approval: Approval, served: Mapping[str, Served]) -> CallResult | None:
    """Why the caller of `approval` may no longer make its call (None: it still may): the client left
    the config, lost the API or the tool (its `tools` rules); a token of no known client, the API no
    longer lets such tokens in."""
    api = config.apis.get(approval.api)
    if api is None:
        return None  # not served here: left for later (`_ready`)
    state = served.get(approval.api)
    tool = state.toolset.get(approval.tool) if state is not None else None
    if approval.client.startswith("oauth:"):
        if api.oauth is None or not api.oauth.allow_unknown_clients:
            return _revoked(approval, "the API no longer lets in tokens of no known client")
        return None
    if not approval.client:
        return None if not config.clients else _revoked(approval, "the config now names its clients")
    client = config.clients.get(approval.client)
    if client is None:
        return _revoked(approval, f"the client {approval.client!r} is no longer in the config")
    if approval.api not in client.apis:
        return _revoked(approval, f"the client {approval.client!r} may no longer use this API")
    if tool is not None and not tool_rules(api, client, None).allows(tool):
        return _revoked(approval, f"the client {approval.client!r} may no longer use this tool")
    return None


def _revoked(approval: Approval, why: str) -> CallResult:
    return CallResult(
        f"this approved call was not sent: {why}. Nothing was sent (approval {approval.id}).",
        is_error=True,
        code=ErrorCode.APPROVAL_ACCESS_REVOKED,
    )


def _identity(approval: Approval, client: ClientConfig | None) -> Identity | None:
    """Who a call made from its approval is for: a token of no known client by its subject, as the
    agent's call named it (`CallRequest.principal`), so its key and its files are that caller's."""
    if client is not None or not approval.client.startswith("oauth:"):
        return None
    return Identity(None, approval.client)


def _planned(request: CallRequest, approval: Approval) -> Planned:
    """The plan of a call made from its approval: the approval's arguments (the agent's key is kept as
    its store name, `approval.idempotency_key`), and the derived key of the document's own key field,
    which the approval keeps among its bound values, bound again so the API deduplicates as it would."""
    keys = key_plan(request.api, request.tool)
    target = keys.target if keys is not None else None
    binding = {target: approval.bound[target]} if target is not None and target in approval.bound else {}
    bindings = served_bindings(keys, request.bindings) if binding else request.bindings
    plan = request.caller.plan(request.tool, bindings)
    return Planned(request, plan, approval.arguments, None, binding)
