"""The gateway stopping (a SIGTERM: a rolling restart, a scale-down), as the call service sees it. No MCP.

    stopping.stop()        from now on: no new call is taken, and every wait that sends nothing ends
                           at once (a person's answer, the client's user, a running long call's result)
    with stopping.cut():   a wait that ends at `stop()` (or after `seconds`); `cut.cancelled_caught`
                           then says it ended early
    with stopping.busy():  a call this process is answering; `idle(seconds)` returns once none is left

What has been claimed (and may be on the wire) is never cut here: it finishes and stores its outcome,
up to the drain's time (`CallService.drain`), and only what is still running then is cancelled, which
leaves its claims outcome unknown, never sent again.
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


# The `Stopping` a call of this task is already counted in (the adapter's count covers the service's).
_COUNTED: ContextVar[Stopping | None] = ContextVar("specbridge_counted", default=None)


class Stopping:
    """One gateway process's stop: the waits it cuts and the calls it lets finish."""

    def __init__(self) -> None:
        self.stopping = False
        self._cuts: set[anyio.CancelScope] = set()
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
