"""The gateway stopping (a SIGTERM: a rolling restart, a scale-down), as the call service sees it. No MCP.

    stopping.stop()        from now on: no new call is taken, and every wait that sends nothing ends
                           at once (a person's answer, the client's user, a running long call's result)
    with stopping.cut():   a wait that ends at `stop()` (or after `seconds`); `cut.cancelled_caught`
                           then says it ended early
    with stopping.busy():  a call this process is answering; `idle(seconds)` returns once none is left

    with stopping.sending() as scope:   a claim, send and store (`_once.once`): cut only by `cut_sends`,
                                        when the drain's time is up (`scope.cancelled_caught`)

What has been claimed (and may be on the wire) is never cut by `stop()`: it finishes and stores its
outcome, up to the drain's time (`CallService.drain`). What still runs then is cut (`cut_sends`): its
claims become outcome unknown, never sent again, and its agent is answered as such (`DRAINED`), or
`gateway-stopping` when its request had not gone out yet.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator
from contextvars import ContextVar

import anyio

from .._errors import ErrorCode
from ..call import CallResult

STOPPING = CallResult(
    "the gateway is stopping (a restart or a scale-down) and takes no new call; nothing was sent. Call "
    "again in a moment with the same arguments: another instance, or this one restarted, answers it.",
    is_error=True,
    code=ErrorCode.GATEWAY_STOPPING,
)


DRAINED = CallResult(
    "the gateway stopped (its drain timeout passed) while this call's request was on its way to the API: "
    "it was sent, and its outcome is not known. It is not sent again; check the API's state before "
    "calling again.",
    is_error=True,
    code=ErrorCode.CALL_OUTCOME_UNKNOWN,
)


# The `Stopping` a call of this task is already counted in (the adapter's count covers the service's).
_COUNTED: ContextVar[Stopping | None] = ContextVar("specbridge_counted", default=None)


class Stopping:
    """One gateway process's stop: the waits it cuts and the calls it lets finish."""

    def __init__(self) -> None:
        self.stopping = False
        self._cuts: set[anyio.CancelScope] = set()
        self._sends: set[anyio.CancelScope] = set()
        self._busy = 0
        self._idle = anyio.Event()
        self._idle.set()

    @contextlib.contextmanager
    def cut(self, seconds: float = math.inf) -> Iterator[anyio.CancelScope]:
        """A scope that ends after `seconds`, or at once when the gateway stops (`cancelled_caught`)."""
        with anyio.move_on_after(seconds) as scope:
            if self.stopping:
                scope.cancel()
            self._cuts.add(scope)
            try:
                yield scope
            finally:
                self._cuts.discard(scope)

    async def pause(self, seconds: float) -> None:
        """`seconds` of waiting, cut short when the gateway stops."""
        with self.cut(seconds):
            await anyio.sleep_forever()

    @contextlib.contextmanager
    def sending(self) -> Iterator[anyio.CancelScope]:
        """A scope around a claim, send and store, which only `cut_sends` ends."""
        with anyio.CancelScope() as scope:
            self._sends.add(scope)
            try:
                yield scope
            finally:
                self._sends.discard(scope)

    def cut_sends(self) -> int:
        """The drain's time is up: end every claim, send and store still running; how many were."""
        for scope in list(self._sends):
            scope.cancel()
        return len(self._sends)

    @contextlib.contextmanager
    def busy(self) -> Iterator[None]:
        """A call being answered: `idle` waits for it. Counted once, however deep it is entered."""
        if _COUNTED.get() is self:
            yield
            return
        counted = _COUNTED.set(self)
        self._busy += 1
        if self._busy == 1:
            self._idle = anyio.Event()
        try:
            yield
        finally:
            _COUNTED.reset(counted)
            self._busy -= 1
            if self._busy == 0:
                self._idle.set()

    @property
    def calls(self) -> int:
        """Calls being answered now."""
        return self._busy

    def stop(self) -> None:
        """Take no new call, and end every wait that sends nothing."""
        self.stopping = True
        for scope in list(self._cuts):
            scope.cancel()

    async def idle(self, seconds: float) -> bool:
        """Whether every call being answered ended within `seconds`."""
        with anyio.move_on_after(seconds):
            await self._idle.wait()
        return self._busy == 0
