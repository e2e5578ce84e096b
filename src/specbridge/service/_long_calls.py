"""One tool call around the store: its idempotency key (`_idempotency`) and, where `calls.long` is on,
a call that outlives `calls.wait` going on in the background (PRODUCT §5.1). No MCP here.

A long call runs as a task of the gateway process; its result is kept through the store's claim
(`call:` + SHA-256 of api, client and call id) and in memory for the callers waiting here. The agent
gets `call-pending` with the call id, and then the result from calling the same tool with the same
arguments again (on this instance: the running call is found by its arguments' hash) or from
`get_call_result` with the id (on any instance sharing the store). Send-once holds: the background task
is the only sender, bounded by the upstream timeout.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import anyio

from .._errors import ErrorCode
from .._logging import log_event
from ..approvals import client_receiver
from ..call import CallResult
from ..config import ApiConfig, Config
from ..store import Announcement, ClaimState, Store, StoreError
from ..tools import Tool
from ._approving import ApprovalService, result_from_json, result_json
from ._idempotency import Idempotency, fingerprint, key_plan, split_key

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
            "description": "The call id a `call-pending` result gave.",
        }
    },
    "required": ["call_id"],
    "additionalProperties": False,
}
MARGIN = 1.0  # what a wait leaves of the call deadline for answering
KEPT = 10_000  # finished long calls remembered in memory (by arguments) for the same call again
LEASE_MARGIN = 10.0  # what a claim's lease adds to the longest the send can take
Send = Callable[[Mapping[str, Json], Mapping[str, Json]], Awaitable[CallResult]]
Keep = Callable[[CallResult], Awaitable[None]]  # stores a long call's fresh result (and its event)
Run = Callable[[Keep | None], Awaitable[CallResult]]


def get_call_result_tool() -> dict[str, Json]:
    return {
        "name": GET_CALL_RESULT,
        "title": "Get a long call's result",
        "description": "Returns the result of a call that answered `call-pending` with a call id, once it "
        "has finished (or `call-pending` again while it runs). Calling the same tool with the same "
        "arguments again works too.",
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


def _pending(call_id: str) -> CallResult:
    return CallResult(
        f"the call is still running (call id {call_id}); it is sent once and goes on in the background. "
        f"Call this tool again with the same arguments, or {GET_CALL_RESULT} with this call_id, to get "
        "its result.",
        is_error=True,
        code=ErrorCode.CALL_PENDING,
    )


@dataclass(slots=True)
class _Running:
    id: str
    scope: tuple[str, str, str]
    same: str  # the arguments' hash: the same call again finds it
    done: anyio.Event = field(default_factory=anyio.Event)
    result: CallResult | None = None
    told_pending: bool = False  # the agent got `call-pending`: the result is announced (call.completed)


class CallService:
    """The store-backed parts of one call: idempotency keys and long calls, on the gateway's store."""

    def __init__(
        self,
        approvals: ApprovalService,
        config: Callable[[], Config],
        *,
        deadline: float,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._approvals = approvals
        self._config = config
        self.deadline = deadline
        self.clock = clock
        self.owner = secrets.token_hex(8)
        self._running: dict[str, _Running] = {}  # by call id
        self._by_arguments: dict[tuple[tuple[str, str, str], str], str] = {}  # (scope, hash) -> call id
        self._tasks: set[asyncio.Task[None]] = set()

    async def _store(self) -> Store | CallResult:
        try:
            return await self._approvals.open(self._config())
        except StoreError as error:
            log_event("store unavailable", level=logging.ERROR, code=str(error.code), reason=error.message)
            return CallResult(
                "idempotency keys and long calls need the store, which cannot be reached now; nothing "
                "was sent. Try again later.",
                is_error=True,
                code=ErrorCode.STORE_UNAVAILABLE,
            )

    async def call(
        self,
        api: ApiConfig,
        tool: Tool,
        client: str | None,
        arguments: Mapping[str, Json],
        send: Send,
        *,
        budget: float,
        send_timeout: float,
    ) -> CallResult:
        """`send(arguments, extra_bindings)` once, as the config's idempotency and long calls say."""
        scope = (api.name, client or "", tool.name)
        plan = key_plan(api, tool)
        key: str | None = None
        rest: Mapping[str, Json] = arguments
        if plan is not None:
            split = split_key(arguments, plan)
            if isinstance(split, CallResult):
                return split
            key, rest = split
        if key is None and not api.calls.long:
            return await send(rest, {})
        store = await self._store()
        if isinstance(store, CallResult):
            return store
        lease = self.deadline + send_timeout + LEASE_MARGIN
        extra = plan.binding(scope, key) if plan is not None and key is not None else {}

        def plain(keep: Keep | None = None) -> Awaitable[CallResult]:
            return send(rest, extra)

        run: Run = plain
        if key is not None:
            idempotency = Idempotency(store, clock=self.clock, owner=self.owner, lease=lease)
            ttl, the_key = api.idempotency.ttl, key
            wait_for_other = budget - MARGIN if not api.calls.long else send_timeout + MARGIN

            def run(keep: Keep | None = None) -> Awaitable[CallResult]:
                # A long call's result and event are stored before the key's: a kill between the two
                # leaves the key outcome unknown (never re-sent), not a result without its event.
                return idempotency.run(
                    scope, the_key, rest, plain, ttl=ttl, budget=wait_for_other, first=keep
                )

        if not api.calls.long:
            return await run(None)
        wait = max(0.0, min(api.calls.wait, budget - MARGIN))
        return await self._long(
            store, scope, arguments, run, wait=wait, keep=api.idempotency.ttl, lease=lease
        )

    # -- long calls --------------------------------------------------------------------------------

    async def _long(
        self,
        store: Store,
        scope: tuple[str, str, str],
        arguments: Mapping[str, Json],
        run: Run,
        *,
        wait: float,
        keep: float,
        lease: float,
    ) -> CallResult:
        same = fingerprint(arguments)
        call_id = self._by_arguments.get((scope, same))
        running = self._running.get(call_id) if call_id is not None else None
        if running is None:
            self._prune()
            running = _Running(secrets.token_hex(16), scope, same)
            name = call_key(scope[0], scope[1], running.id)
            await store.claim(name, self.owner, same, lease, keep, self.clock())  # a fresh id: always won
            self._running[running.id] = running
            self._by_arguments[(scope, same)] = running.id
            task = asyncio.get_running_loop().create_task(self._background(store, name, running, run))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        return await self._await(running, wait)

    async def _background(self, store: Store, name: str, running: _Running, run: Run) -> None:
        stored = False

        async def keep(result: CallResult) -> None:
            """The result and, if the agent was told the call is pending, `call.completed`, in one store
            step; from here on a wait gets the result, so `told_pending` is settled."""
            nonlocal stored
            stored, running.result = True, result
            with anyio.CancelScope(shield=True):
                now = self.clock()
                announce = self._completed(running, result, now) if running.told_pending else None
                await store.complete(name, self.owner, result_json(result), now, announce)

        try:
            result = await run(keep)
            if not stored:  # no fresh result reached `keep` (a key's stored one, say)
                await keep(result)
        except BaseException as error:  # cancelled at shutdown, or a fault: it may have been sent
            if not stored:
                with anyio.CancelScope(shield=True):
                    await store.abandon(name, self.owner, sent=True)
                running.result = CallResult(
                    "the call ended without a result; it is not sent again",
                    is_error=True,
                    code=ErrorCode.CALL_OUTCOME_UNKNOWN,
                )
            running.done.set()
            if not isinstance(error, Exception):
                raise
            log_event(
                "long call failed inside the gateway",
                level=logging.ERROR,
                exc_info=True,
                tool=running.scope[2],
            )
            return
        running.done.set()

    def _completed(self, running: _Running, result: CallResult, now: float) -> Announcement | None:
        """`call.completed` for the client's webhook, when it asked for it: the agent was told the call
        is pending, and this tells its owner it is done (the result as the agent gets it). Written in
        the store step that stores the result, so a gateway killed in between loses neither."""
        api, client_id, tool = running.scope
        client = self._config().clients.get(client_id)
        hook = client.webhook if client is not None else None
        if hook is None or CALL_COMPLETED not in hook.events:
            return None
        data = {
            "call_id": running.id,
            "api": api,
            "tool": tool,
            "client": client_id,
            "result": result_json(result),
        }
        receiver = client_receiver(client_id)
        payload = {"type": CALL_COMPLETED, "timestamp": iso(now), "data": data}
        return Announcement(CALL_COMPLETED, payload, now, receiver, f"{receiver}|call:{running.id}")

    async def _await(self, running: _Running, wait: float) -> CallResult:
        with anyio.move_on_after(wait):
            await running.done.wait()
        if running.result is None:
            running.told_pending = True
            return _pending(running.id)
        self._handed(running)
        return running.result

    def _prune(self) -> None:
        """Forget the oldest finished calls nobody asked for again beyond `KEPT` (their results stay in
        the store, for `get_call_result`); running ones are always kept."""
        finished = [call_id for call_id, running in self._running.items() if running.result is not None]
        for call_id in finished[: max(0, len(finished) - KEPT)]:
            self._handed(self._running[call_id])

    def _handed(self, running: _Running) -> None:
        """The result reached an agent: the same arguments now make a new call."""
        key = (running.scope, running.same)
        if self._by_arguments.get(key) == running.id:
            del self._by_arguments[key]
        self._running.pop(running.id, None)

    async def result(
        self, api: str, client: str | None, arguments: Mapping[str, Json], *, wait: float
    ) -> CallResult:
        """`get_call_result`: the result of the caller's own long call, by id, from this instance or the
        store (another client's id is not found)."""
        call_id = arguments.get("call_id")
        if not isinstance(call_id, str) or not 0 < len(call_id) <= 64:
            return CallResult(
                "invalid arguments: call_id: must be the call id a call-pending result gave",
                is_error=True,
                code=ErrorCode.ARGUMENTS_INVALID,
            )
        running = self._running.get(call_id)
        if running is not None and running.scope[:2] == (api, client or ""):
            return await self._await(running, wait)
        store = await self._store()
        if isinstance(store, CallResult):
            return store
        name = call_key(api, client or "", call_id)
        pause, give_up = 0.02, anyio.current_time() + wait
        while True:
            claim = await store.get_claim(name, self.clock())
            if claim is None:
                break
            if claim.state is ClaimState.DONE:
                return result_from_json(claim.result)
            if claim.state is ClaimState.UNKNOWN:
                return CallResult(
                    f"call {call_id} was sent, but its outcome was never recorded (the gateway running it "
                    "stopped); it is not sent again",
                    is_error=True,
                    code=ErrorCode.CALL_OUTCOME_UNKNOWN,
                )
            left = give_up - anyio.current_time()
            if left <= 0:
                return _pending(call_id)
            await anyio.sleep(min(pause, left))
            pause = min(pause * 2, 0.5)
        return CallResult(
            f"no call {call_id[:64]!r} of yours is known here (results are kept for the idempotency ttl)",
            is_error=True,
            code=ErrorCode.CALL_NOT_FOUND,
        )

    async def aclose(self) -> None:
        """Stop the background calls (each becomes outcome unknown in the store)."""
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
