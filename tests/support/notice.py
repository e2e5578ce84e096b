"""Waiting on something the code under test does, without polling: `notice` wraps one async method of one
object (a store, say) so that an event is set once a call of it returns what the test waits for.

    read_pending = notice(store, "get_approval", lambda found: found.status is Status.PENDING)
    ... start the call that reads the approval ...
    with anyio.fail_after(10):
        await read_pending.wait()

The method still runs as it is and its answer is returned unchanged; only this object is wrapped, for as
long as it lives (a test's own store, not a shared one).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio

from specbridge.store import Status


def notice(target: object, name: str, when: Callable[[Any], bool] = lambda _: True) -> anyio.Event:
    """An event set after `target.name(...)` (an async method) first returns a value `when` accepts."""
    method = getattr(target, name)
    seen = anyio.Event()

    async def noticing(*args: Any, **kwargs: Any) -> Any:
        answer = await method(*args, **kwargs)
        if not seen.is_set() and when(answer):
            seen.set()
        return answer

    setattr(target, name, noticing)
    return seen


def reads_pending(store: object) -> anyio.Event:
    """Set once `store` hands out an approval that is pending: a call that asked for approval has read
    its record and waits for the answer from then on (answers given in the same process wake it)."""
    return notice(store, "get_approval", lambda found: found is not None and found.status is Status.PENDING)
