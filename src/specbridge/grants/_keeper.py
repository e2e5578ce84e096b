"""`Keeper`: one token per slot (an API's own token, or one client's account of it) kept in the store,
sealed, and shared by every call and every instance on that store.

    held = await keeper.held(store, sealer, slot, fetch, keep=...)   # usable tokens, or None

`sealer` is asked for only when the store is (`_seal.sealer_for`: the store_key read and checked), so a
call whose token is in memory costs a lookup and no more.

A call finds the token in this process's memory (no store step), else in the store (a restart does
not fetch again; another instance's token is used as it is), else it is fetched: by one caller per
process (the others wait for that fetch, whatever becomes of their own calls) and one instance per
store at a time (a lock on the store: an execute-once claim that lapses by itself, so an instance that
dies while fetching holds nobody up for long). An instance that finds the lock taken waits for what
the holder stores. `stale` asks for tokens other than the ones an API just refused (401).

Fetching happens before a call's claim, so whatever goes wrong here is a refusal: nothing was sent.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import orjson

from .._logging import log_event
from ..call import Lru
from ..store import Store, StoreError, poll
from ._endpoint import GrantError
from ._seal import Sealer, Unreadable
from ._tokens import Tokens

LOCK_LEASE = 30.0  # seconds an instance may hold the right to fetch (the endpoint's timeout is 10 s)
POLL, POLL_MOST = 0.02, 0.4  # the waits between looks at the store while another instance fetches
CACHED = 4096  # slots remembered in memory (each: one API's token, or one client's account)
LOCK = "grant-fetch:"

Fetch = Callable[[Tokens | None], Awaitable[Tokens]]  # new tokens, given the stored ones (maybe expired)
Keep = Callable[[Tokens], float]  # until when the store keeps a slot's record
Sealing = Callable[[], Sealer]  # the sealer of store_key, had when the store is used


@dataclass(frozen=True, slots=True)
class Held:
    """Usable tokens and the sealed record they came from (which record: a renewal asks for another)."""

    tokens: Tokens
    blob: bytes


class Keeper:
    def __init__(self, owner: str, clock: Callable[[], float]) -> None:
        self.owner = owner
        self.clock = clock
        self._memory: Lru[str, Held] = Lru(CACHED)
        # asyncio, not anyio: a fetch outlives the caller who started it (its deadline does not cancel
        # the others' fetch), and anyio has no task outside a task group that the keeper could own
        self._flights: dict[str, asyncio.Task[Held | None]] = {}

    def forget(self, slot: str) -> None:
        """This process no longer uses what it remembers of `slot` (a new account was just stored)."""
        self._memory.put(slot, _NOTHING)

    async def held(
        self,
        store: Store,
        sealer: Sealing,
        slot: str,
        fetch: Fetch | None,
        *,
        keep: Keep,
        stale: bytes | None = None,
        missing: bool = True,
    ) -> Held | None:
        """The usable tokens of `slot` other than `stale`: remembered, stored, or fetched (`fetch` None:
        nothing can fetch them; `missing=False`: only stored ones are renewed, and None comes back when
        there are none). Raises GrantError, StoreError, CallError."""
        remembered = self._memory.get(slot)
        if remembered is not None and remembered.blob != stale and remembered.tokens.usable(self.clock()):
            return remembered
        for _ in range(2):  # a flight that ended with the very tokens this caller was refused: once more
            flight = self._flights.get(slot)
            if flight is None:
                work = self._obtain(store, sealer, slot, fetch, keep, stale, missing)
                flight = self._flights[slot] = asyncio.ensure_future(work)
                flight.add_done_callback(lambda done: self._landed(slot, done))
            found = await asyncio.shield(flight)  # a caller's deadline does not cancel the others' fetch
            if found is None or found.blob != stale:
                return found
        return None

    def _landed(self, slot: str, flight: asyncio.Task[Held | None]) -> None:
        if self._flights.get(slot) is flight:
            del self._flights[slot]
        if not flight.cancelled():
            flight.exception()  # retrieved, even when every caller stopped waiting

    async def _obtain(
        self,
        store: Store,
        sealer: Sealing,
        slot: str,
        fetch: Fetch | None,
        keep: Keep,
        stale: bytes | None,
        missing: bool,
    ) -> Held | None:
        stored = await self._read(store, sealer, slot)
        if stored is not None and stored.blob != stale and stored.tokens.usable(self.clock()):
            return self._remember(slot, stored)
        if fetch is None or (stored is None and not missing):
            return None
        lock = LOCK + slot
        for _ in range(2):
            claim = await store.claim(lock, self.owner, "grant", LOCK_LEASE, LOCK_LEASE, self.clock())
            if claim.won:
                break
            newer = await self._await_other(store, sealer, slot, stored, stale)
            if newer is not None:
                return self._remember(slot, newer)
        else:
            raise GrantError("another gateway instance is fetching the token and has not finished")
        try:
            stored = await self._read(store, sealer, slot)  # what the lock's previous holder stored
            if stored is not None and stored.blob != stale and stored.tokens.usable(self.clock()):
                return self._remember(slot, stored)
            if stored is None and not missing:
                return None
            tokens = await fetch(stored.tokens if stored is not None else None)
            blob = sealer().seal(slot, tokens.data())
            await store.put_sealed(slot, blob, keep(tokens), self.clock())
            return self._remember(slot, Held(tokens, blob))
        finally:
            with contextlib.suppress(StoreError):
                await store.abandon(lock, self.owner, sent=False)

    async def _await_other(
        self, store: Store, sealer: Sealing, slot: str, before: Held | None, stale: bytes | None
    ) -> Held | None:
        """Another instance holds the lock: the tokens it stores, or None once its lock is gone (or has
        lapsed) without new ones."""
        earlier = (stale, before.blob if before else None)

        async def look() -> tuple[bool, Held | None]:
            found = await self._read(store, sealer, slot)
            if found is not None and found.blob not in earlier and found.tokens.usable(self.clock()):
                return True, found
            return await store.get_claim(LOCK + slot, self.clock()) is None, None

        return await poll(look, seconds=LOCK_LEASE, first=POLL, most=POLL_MOST)

    async def _read(self, store: Store, sealer: Sealing, slot: str) -> Held | None:
        blob = await store.get_sealed(slot, self.clock())
        if blob is None:
            return None
        try:
            return Held(Tokens.from_data(sealer().open(slot, blob)), blob)
        except Unreadable as error:
            why = error.why
        except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
            why = "its content is not what this version of specbridge writes"
        log_event(
            "a stored token cannot be read; it is not used", level=logging.WARNING, slot=_shown(slot), why=why
        )
        return None

    def _remember(self, slot: str, held: Held) -> Held:
        self._memory.put(slot, held)
        return held

    async def aclose(self) -> None:
        flights = list(self._flights.values())
        for flight in flights:
            flight.cancel()
        for flight in flights:
            with contextlib.suppress(BaseException):
                await flight


_NOTHING = Held(Tokens("", 0.0, 0.0), b"")  # never usable: what `forget` leaves


def _shown(slot: str) -> str:
    """A slot as a log line may show it: its kind, API and client, not its settings' digest."""
    kind, _, rest = slot.partition(":")
    api, _, more = rest.partition(":")
    client = more.partition(":")[2]
    return ":".join(part for part in (kind, api, client) if part)
