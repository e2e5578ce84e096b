"""Long calls (`calls.long`, PRODUCT §5.1): a call still running when `calls.wait` ends goes on in the
background, and the agent gets `call-pending` with the call id. No MCP here.

A long call runs as a task of the gateway process: the call service hands `LongCalls.start` the steps
after the approval (claim, send, store), and they run in the background; nothing before them runs
there, so nothing that sends nothing (a file, a person) can end as "outcome unknown". Two claims in the
store carry it, so any instance sharing the store finds it:

    call:     + SHA-256 of api, client, call id      its result (`get_call_result`), kept for the ttl
    running:  + SHA-256 of api, client, fingerprint  owned by the call id: the same call again, on any
                                                     instance, attaches to this call id (`attach`)

The call's own claim is taken first, then the running claim: of two instances starting the same call
at once, one wins the running claim and the other gives its call id back and attaches. The running
claim is given back (by its owner, the call id) when the result is handed out, so the same call then
is a new one; it is kept a lease shorter than the call's own claim, so a call id it names is always
found. A call whose instance died reads outcome unknown (its lease passed): never sent again. The
background task is the only sender, bounded by the upstream timeout; the instance running it also
keeps the result in memory for the callers waiting there.
"""

from __future__ import annotations

import asyncio  # asyncio: a long call runs on after the call that started it returns
import contextlib
import hashlib
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import anyio

from .._errors import ErrorCode
from .._logging import log_event
from ..approvals import client_receiver
from ..call import CallResult
from ..config import Config
from ..store import Announcement, ClaimState, Store, StoreError, poll
from ._results import result_from_json, store_unavailable
from ._stopping import Stopping

Json = Any
GET_CALL_RESULT = "get_call_result"
CALL_COMPLETED = "call.completed"
GET_CALL_RESULT_SCHEMA: dict[str, Json] = {
    "type": "object",
    "properties": {
        "call_id": {
            "type": "string",
            "minLength": 1,
            "maxLength": 64,
            "description": "The call id a `call-pending` result gave, or the approval id of `approval-pending`.",
        }
    },
    "required": ["call_id"],
    "additionalProperties": False,
}
KEPT = 10_000  # finished long calls remembered in memory (by fingerprint) for the same call again


def get_call_result_tool() -> dict[str, Json]:
    return {
        "name": GET_CALL_RESULT,
        "title": "Get a long call's result",
        "description": "Returns the result of a call that answered `call-pending` with a call id (or "
        "`approval-pending` with an approval id, as the call id), once it has finished (or the same "
        "pending answer again meanwhile). Calling the same tool with the same arguments again works too.",
        "inputSchema": GET_CALL_RESULT_SCHEMA,
        "annotations": {
            "readOnlyHint": True,
            "destructiveHint": False,
            "idempotentHint": True,
            "openWorldHint": False,
        },
    }


def iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def call_key(api: str, client: str, call_id: str) -> str:
    return "call:" + hashlib.sha256("\0".join((api, client, call_id)).encode()).hexdigest()


def running_key(api: str, client: str, same: str) -> str:
    """The claim that names the call id of the long call running for this fingerprint, if any."""
    return "running:" + hashlib.sha256("\0".join((api, client, same)).encode()).hexdigest()


def _pending(call_id: str) -> CallResult:
    return CallResult(
        f"the call is still running (call id {call_id}); it is sent once and goes on in the background. "
        f"Call this tool again with the same arguments, or {GET_CALL_RESULT} with this call_id, to get "
        "its result.",
        is_error=True,
        code=ErrorCode.CALL_PENDING,
        handle=call_id,
    )


UNKNOWN = CallResult(
    "the call ended without a result; it is not sent again",
    is_error=True,
    code=ErrorCode.CALL_OUTCOME_UNKNOWN,
)


def _unknown(call_id: str) -> CallResult:
    return CallResult(
        f"call {call_id} was sent, but its outcome was never recorded (the gateway running it stopped); "
        "it is not sent again",
        is_error=True,
        code=ErrorCode.CALL_OUTCOME_UNKNOWN,
    )


@dataclass(slots=True)
class Running:
    """One long call of this process: its claim in the store, and its result once stored."""

    id: str
    scope: tuple[str, str, str]
    same: str  # the call's fingerprint: the same call again finds it
    store: Store
    name: str  # its claim in the store
    owner: str
    clock: Callable[[], float]
    hook: Callable[[Running, Json, float], Announcement | None]
    done: anyio.Event = field(default_factory=anyio.Event)
    result: CallResult | None = None
    told_pending: bool = False  # the agent got `call-pending`: the result is announced (call.completed)

    async def keep(self, result: CallResult, data: Json) -> None:
        """Step 8 of a long call: the result and, if the agent was told the call is pending,
        `call.completed`, in one store step; from here on a wait gets the result, so `told_pending` is
        settled."""
        self.result = result
        now = self.clock()
        announce = self.hook(self, data, now) if self.told_pending else None
        try:
            await self.store.complete(self.name, self.owner, data, now, announce)
        finally:
            self.done.set()

    async def abandon(self) -> None:
        """The call may have been sent and its result is lost: outcome unknown, never sent again."""
        if self.result is None:
            self.result = UNKNOWN
        try:
            await self.store.abandon(self.name, self.owner, sent=True)
        finally:
            self.done.set()


class LongCalls:
    """The long calls of one gateway process: started, found again by fingerprint (from the store, so
    from any instance), awaited; at a stop, let finish for a while (`finish`), then cancelled."""

    def __init__(
        self,
        config: Callable[[], Config],
        owner: str,
        *,
        clock: Callable[[], float] = time.time,
        stopping: Stopping | None = None,
    ) -> None:
        self._config = config
        self.owner = owner
        self.clock = clock
        self.stopping = stopping or Stopping()
        self._running: dict[str, Running] = {}  # by call id: this instance's, running or not handed out
        self._tasks: set[asyncio.Task[None]] = set()

    async def attach(
        self, store: Store, scope: tuple[str, str, str], same: str, *, wait: float
    ) -> CallResult | None:
        """Step 4: the long call of this very call running on any instance (its result, or `call-pending`
        with its id after `wait`); None when there is none."""
        claim = await store.get_claim(running_key(scope[0], scope[1], same), self.clock())
        if claim is None:
            return None
        return await self._follow(store, scope, same, claim.owner, wait)

    async def start(
        self,
        store: Store,
        scope: tuple[str, str, str],
        same: str,
        work: Callable[[Running], Awaitable[CallResult]],
        *,
        lease: float,
        keep: float,
        wait: float,
    ) -> CallResult:
        """Claim a fresh call id and this call's running claim, run `work` (claim, send, store) in the
        background, and wait up to `wait` seconds for its result; `call-pending` with the id after
        that. When another instance started the same call meanwhile, attach to it instead."""
        self._prune()
        call_id = secrets.token_hex(16)
        name = call_key(scope[0], scope[1], call_id)
        running = Running(call_id, scope, same, store, name, self.owner, self.clock, self._completed)
        now = self.clock()
        try:
            # the call's own claim outlives its running claim: a call id that one names is always found
            await store.claim(running.name, self.owner, same, lease, keep + lease, now)
            mine = await store.claim(running_key(scope[0], scope[1], same), call_id, same, lease, keep, now)
        except StoreError as error:
            with contextlib.suppress(StoreError):
                await store.abandon(running.name, self.owner, sent=False)  # nothing was sent
            return store_unavailable(error)
        if not mine.won:  # the same call, started on another instance (or here) a moment ago
            try:
                await store.abandon(running.name, self.owner, sent=False)
                return await self._follow(store, scope, same, mine.owner, wait)
            except StoreError as error:
                return store_unavailable(error)
        self._running[running.id] = running
        task = asyncio.get_running_loop().create_task(self._background(running, work))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return await self.wait(running, wait)

    async def _background(self, running: Running, work: Callable[[Running], Awaitable[CallResult]]) -> None:
        try:
            await work(running)
        except BaseException as error:  # cancelled at shutdown, or a fault past the claim: maybe sent
            if not running.done.is_set():
                with anyio.CancelScope(shield=True):
                    with contextlib.suppress(StoreError):
                        await running.abandon()
            if not isinstance(error, Exception):
                raise
            log_event(
                "long call failed inside the gateway",
                level=logging.ERROR,
                exc_info=True,
                tool=running.scope[2],
            )

    def _completed(self, running: Running, data: Json, now: float) -> Announcement | None:
        """`call.completed` for the client's webhook, when it asked for it: the agent was told the call
        is pending, and this tells its owner it is done (the result as the agent gets it). Written in
        the store step that stores the result, so a gateway killed in between loses neither."""
        api, client_id, tool = running.scope
        client = self._config().clients.get(client_id)
        hook = client.webhook if client is not None else None
        if hook is None or CALL_COMPLETED not in hook.events:
            return None
        event = {"call_id": running.id, "api": api, "tool": tool, "client": client_id, "result": data}
        receiver = client_receiver(client_id)
        payload = {"type": CALL_COMPLETED, "timestamp": iso(now), "data": event}
        return Announcement(CALL_COMPLETED, payload, now, receiver, f"{receiver}|call:{running.id}")

    async def wait(self, running: Running, wait: float) -> CallResult:
        """The call's result once there (it is then handed out: the same call again is a new one), or
        `call-pending` after `wait` seconds (at once when the gateway stops: the call goes on)."""
        with self.stopping.cut(wait):
            await running.done.wait()
        if running.result is None:
            running.told_pending = True
            return _pending(running.id)
        self._running.pop(running.id, None)
        await self._handed(running.store, running.scope, running.same, running.id)
        return running.result

    async def _follow(
        self, store: Store, scope: tuple[str, str, str], same: str, call_id: str, wait: float
    ) -> CallResult:
        """The result of call `call_id` (the long call running for `same`): from memory when it runs
        here, else from its claim in the store, read until it is there or `wait` passes."""
        running = self._running.get(call_id)
        if running is not None:
            return await self.wait(running, wait)
        found, _ = await self._stored(store, scope[0], scope[1], call_id, wait)
        if found is None:  # its own claim is gone although its running claim names it: never resend
            found = _unknown(call_id)
        if found.code is not ErrorCode.CALL_PENDING:
            await self._handed(store, scope, same, call_id)
        return found

    async def _stored(
        self, store: Store, api: str, client: str, call_id: str, wait: float
    ) -> tuple[CallResult | None, str]:
        """Call `call_id`'s outcome as its claim says (and the call's fingerprint), read again until it
        is final or `wait` passes (`call-pending` then, at once when the gateway stops); None when the
        store knows no such call."""
        name = call_key(api, client, call_id)

        async def look() -> tuple[bool, tuple[CallResult | None, str]]:
            claim = await store.get_claim(name, self.clock())
            if claim is None:
                return True, (None, "")
            if claim.state is ClaimState.DONE:
                return True, (result_from_json(claim.result), claim.fingerprint)
            if claim.state is ClaimState.UNKNOWN:
                return True, (_unknown(call_id), claim.fingerprint)
            return self.stopping.stopping, (_pending(call_id), claim.fingerprint)

        return await poll(look, seconds=wait, first=0.02, most=0.5, pause=self.stopping.pause)

    async def _handed(self, store: Store, scope: tuple[str, str, str], same: str, call_id: str) -> None:
        """The result went to the agent: give the running claim back (only if it still names this
        call), so the same call again is a new one. If the store fails here, the same call again gets
        this result once more, which is safe."""
        with contextlib.suppress(StoreError):
            await store.abandon(running_key(scope[0], scope[1], same), call_id, sent=False)

    def _prune(self) -> None:
        """Forget the oldest finished calls nobody asked for here beyond `KEPT` (their results stay in
        the store, found by fingerprint and by id); running ones are always kept."""
        finished = [call_id for call_id, running in self._running.items() if running.result is not None]
        for call_id in finished[: max(0, len(finished) - KEPT)]:
            del self._running[call_id]

    async def result(
        self, store: Store, api: str, client: str | None, call_id: str, *, wait: float
    ) -> CallResult:
        """`get_call_result`: the caller's own long call by id, from this instance or the store
        (another client's id is not found)."""
        running = self._running.get(call_id)
        if running is not None and running.scope[:2] == (api, client or ""):
            return await self.wait(running, wait)
        found, same = await self._stored(store, api, client or "", call_id, wait)
        if found is None:
            return CallResult(
                f"no call {call_id[:64]!r} of yours is known here (results are kept for the idempotency ttl)",
                is_error=True,
                code=ErrorCode.CALL_NOT_FOUND,
            )
        if found.code is not ErrorCode.CALL_PENDING:  # handed out: the same call again is a new one
            await self._handed(store, (api, client or "", ""), same, call_id)
        return found

    @property
    def running(self) -> int:
        """Long calls still running in this process."""
        return len(self._tasks)

    async def finish(self, seconds: float) -> bool:
        """Let the running long calls finish and store their results, for up to `seconds`; whether
        they all did."""
        with anyio.move_on_after(seconds):
            while self._tasks:
                await asyncio.wait(list(self._tasks))
        return not self._tasks

    async def aclose(self) -> None:
        """Stop the background calls still running (each becomes outcome unknown in the store)."""
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
