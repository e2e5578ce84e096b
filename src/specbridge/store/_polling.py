"""`poll`: a store read made again, with backoff, until it settles or a deadline comes; the one loop
of every waiter on another instance's work (an approval's answer, a long call's result, a held
idempotency key, another instance's token fetch).

    found = await poll(look, seconds=wait, first=0.02, most=0.5)

`look` reads the store once and returns `(settled, value)`; `poll` returns the value of the first
settled look, or of the last one once `seconds` have passed (at least one look is always made). Between
looks it pauses `first` seconds, doubling up to `most`, never past the deadline; `pause` replaces the
plain sleep for a waiter that can be woken early (an answer given in this process, a stop).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

import anyio

T = TypeVar("T")

Look = Callable[[], Awaitable[tuple[bool, T]]]
Pause = Callable[[float], Awaitable[None]]


async def poll(look: Look[T], *, seconds: float, first: float, most: float, pause: Pause | None = None) -> T:
    """The value of `look`'s first settled answer, or of its last one after `seconds`."""
    give_up = anyio.current_time() + seconds
    wait, step = first, pause or anyio.sleep
    while True:
        settled, value = await look()
        left = give_up - anyio.current_time()
        if settled or left <= 0:
            return value
        await step(min(wait, left))
        wait = min(wait * 2, most)
