"""`RedisStore`'s sealed values (`Store.put_sealed`, `get_sealed`, `take_sealed`): a hash `k:KEY` under
the namespace with the bytes (base64: the pool decodes replies as text) and their expiry, and a Redis
TTL of their lifetime (not the wall-clock expiry: callers' clocks may be fake). A take reads and
deletes in one MULTI transaction, so of two takers one gets the value."""

from __future__ import annotations

import base64
from typing import Any

from ._parts import RedisPart, redis_number


class RedisSealed(RedisPart):
    async def put_sealed(self, key: str, data: bytes, expires_at: float, now: float) -> None:
        name = self.prefix + "k:" + key
        ttl = max(1, int((expires_at - now) * 1000))
        record = {"d": base64.b64encode(data).decode("ascii"), "e": redis_number(expires_at)}
        with self._failing():
            async with self._client().pipeline(transaction=True) as pipe:
                pipe.delete(name)
                pipe.hset(name, mapping=record)
                pipe.pexpire(name, ttl)
                await pipe.execute()

    async def get_sealed(self, key: str, now: float) -> bytes | None:
        with self._failing():
            row = await self._client().hgetall(self.prefix + "k:" + key)  # type: ignore[misc]
        return _data(row, now)

    async def take_sealed(self, key: str, now: float) -> bytes | None:
        name = self.prefix + "k:" + key
        with self._failing():
            async with self._client().pipeline(transaction=True) as pipe:
                pipe.hgetall(name)
                pipe.delete(name)
                row, _ = await pipe.execute()
        return _data(row, now)


def _data(row: Any, now: float) -> bytes | None:
    if not row or float(row.get("e", 0)) <= now:
        return None
    return base64.b64decode(row["d"])
