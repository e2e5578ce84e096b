"""What the front keeps in the gateway's store, each record sealed with `store_key` (`grants.Sealer`:
AES-256-GCM, bound to its store key, so a record copied under another key does not open) and dropped
by the store when it expires:

    front-authz:<state>       an authorization under way at the sign-in provider (10 minutes, taken once)
    front-consent:<id>        a signed-in person's consent page (10 minutes, taken once)
    front-code:<hash>         an authorization code (60 seconds, taken once)
    front-family:<sid>        a sign-in: its client, person, API, scope (alive = not revoked)
    front-refresh:<hash>      a refresh token of a sign-in (taken once: rotation)
    front-used:<hash>         a refresh token already used (a second use revokes its sign-in)
    front-client:<client_id>  a client registered dynamically (RFC 7591)

Tokens and codes are keyed by their SHA-256, never by themselves, so the store holds nothing that is a
credential on its own. Every instance on one store (and one `store_key`) reads the same records.
"""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable
from typing import Any

import orjson

from ..grants import Sealer, Unreadable
from ..store import RateLimit, Store

Json = dict[str, Any]


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


class Records:
    def __init__(
        self,
        store: Callable[[], Awaitable[Store]],
        sealer: Callable[[], Sealer],
        clock: Callable[[], float],
    ) -> None:
        self._store = store
        self._sealer = sealer
        self.clock = clock

    async def put(self, kind: str, key: str, value: Json, until: float) -> None:
        slot = f"front-{kind}:{key}"
        now = self.clock()
        await (await self._store()).put_sealed(
            slot, self._sealer().seal(slot, orjson.dumps(value)), until, now
        )

    async def get(self, kind: str, key: str) -> Json | None:
        slot = f"front-{kind}:{key}"
        return self._open(slot, await (await self._store()).get_sealed(slot, self.clock()))

    async def take(self, kind: str, key: str) -> Json | None:
        """The record, removed in the same step (of two takers, one gets it)."""
        slot = f"front-{kind}:{key}"
        return self._open(slot, await (await self._store()).take_sealed(slot, self.clock()))

    async def count(self, key: str, calls: int, window: float) -> float:
        """One more of at most `calls` in `window` seconds under `key`; the wait (0: counted)."""
        waits = await (await self._store()).count_call([RateLimit(key, calls, window)], self.clock())
        return max(waits, default=0.0)

    def _open(self, slot: str, blob: bytes | None) -> Json | None:
        if blob is None:
            return None
        try:
            found = orjson.loads(self._sealer().open(slot, blob))
        except (Unreadable, orjson.JSONDecodeError):
            return None  # not this gateway's (another store_key), or changed: as if it were not there
        return found if isinstance(found, dict) else None
