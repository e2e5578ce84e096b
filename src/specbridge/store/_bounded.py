"""What every backend's operations share, put around them once (`Store.__init_subclass__`), so no
backend and no new operation can leave it out:

- **A time bound.** Each operation of the interface ends within the store's `timeout` (seconds; 5 by
  default, `?timeout=` in the store URL): past it the caller gets `StoreError` (`store-unavailable`) at
  once, whatever the backend is doing (a frozen server, a lost packet, a SQLite file another process
  holds locked). The operation is cancelled when the bound passes. A backend whose driver is slow to
  give up a cancelled step (`slow_to_cancel`: psycopg asks the server to cancel the query and waits up
  to 10 s more) runs each operation as a task of its own that is cancelled but not waited for; the
  others (SQLite's thread hop, redis-py, which drops the connection) are cancelled in place, which
  costs a few microseconds instead of a task (about 25). As with any timeout, the outcome of an
  operation cut off is unknown: the store may still apply it. Every step is built for that (a claim
  that was taken but not known reads as someone else's, never as free).
- **Impossible ids are "not found".** An id with a NUL character or text that cannot be UTF-8 (a lone
  surrogate) names no record; PostgreSQL refuses to even compare it (which read as the store failing)
  and the drivers cannot encode it. Such a lookup answers as for an unknown id on every backend.
"""

from __future__ import annotations

import asyncio  # asyncio: a cut-off operation goes on cleaning up as a task no caller awaits
import functools
from collections.abc import Awaitable, Callable
from typing import Any

DEFAULT_TIMEOUT = 5.0
START_TIMEOUT = 15.0  # connecting and migrating, at least: a fresh PostgreSQL connection may be slow

# Operations that take an id first, and what they answer for one that names nothing.
NOT_FOUND: dict[str, Any] = {
    "get_approval": None,
    "update_approval": None,
    "get_claim": None,
    "complete": False,
    "abandon": False,
    "ack": None,
    "retry_at": None,
    "get_file": None,
    "delete_file": False,
    "get_sealed": None,
    "take_sealed": None,
    "get_session": None,
    "touch_session": False,
    "end_session": False,
}

_ABANDONED: set[asyncio.Task[Any]] = set()  # cut-off operations still cleaning up


def impossible_id(value: object) -> bool:
    """Whether `value` cannot be the id of any record (see the module)."""
    if not isinstance(value, str):
        return False
    if "\x00" in value:
        return True
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _forget(task: asyncio.Task[Any]) -> None:
    _ABANDONED.discard(task)
    if not task.cancelled():
        task.exception()  # retrieved, so asyncio does not report it: the caller already got its error


def _abandon(task: asyncio.Task[Any]) -> None:
    task.cancel()
    _ABANDONED.add(task)
    task.add_done_callback(_forget)


Failure = Callable[[str], Exception]  # the store's own error (`StoreError`), made from a message


async def in_place(seconds: float, name: str, work: Awaitable[Any], failure: Failure) -> Any:
    """`work`'s result, or `failure` once `seconds` pass (`work` is then cancelled, and unwinds)."""
    try:
        async with asyncio.timeout(seconds):
            return await work
    except TimeoutError:
        raise failure(f"the store {name} did not answer within {seconds:g} s") from None


async def within(seconds: float, name: str, work: Awaitable[Any], failure: Failure) -> Any:
    """`work`'s result, or `failure` once `seconds` pass (`work` is then cancelled, not waited for)."""
    task = asyncio.ensure_future(work)
    try:
        return await asyncio.wait_for(asyncio.shield(task), seconds)
    except TimeoutError:
        _abandon(task)
        raise failure(f"the store {name} did not answer within {seconds:g} s") from None
    except asyncio.CancelledError:
        _abandon(task)
        raise


def bounded(
    operation: str, method: Callable[..., Awaitable[Any]], failure: Failure
) -> Callable[..., Awaitable[Any]]:
    """`method` (an operation of the interface) with the time bound and, for one that takes an id
    first, the impossible-id answer."""
    if getattr(method, "__bounded__", False):
        return method
    answer_for_nothing = NOT_FOUND.get(operation)
    takes_id = operation in NOT_FOUND
    seconds_of: Callable[[Any], float] = (
        (lambda store: max(START_TIMEOUT, store.timeout))
        if operation == "start"
        else (lambda store: store.timeout)
    )

    @functools.wraps(method)
    async def run(self: Any, *args: Any, **kwargs: Any) -> Any:
        if takes_id and args and impossible_id(args[0]):
            return answer_for_nothing
        bound = within if getattr(self, "slow_to_cancel", False) else in_place
        work = method(self, *args, **kwargs)
        return await bound(seconds_of(self), getattr(self, "name", "store"), work, failure)

    run.__bounded__ = True  # type: ignore[attr-defined]
    return run
