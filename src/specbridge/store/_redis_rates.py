"""`Store.count_call` on Redis (`_rates`): one Lua script (Redis runs it alone, so it is atomic across
every instance). Each key is a sorted set `NS:r:KEY/CALLS` of call times (a changed limit starts
afresh, as on SQL): trimmed to the window, counted, and added to only when every limit has room; it
expires when its window has passed since its last call."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

import redis.asyncio as aioredis

from ._rates import RateLimit

# ARGV: prefix, now, a token unique to this step, then per limit: key, calls, window. Answers each
# limit's wait in seconds as a string ("0": room); a number would come back cut to an integer.
COUNT_CALL = """
local p, now, token = ARGV[1], tonumber(ARGV[2]), ARGV[3]
local waits, full = {}, false
for i = 4, #ARGV, 3 do
  local key, calls, window = p .. 'r:' .. ARGV[i] .. '/' .. ARGV[i + 1], tonumber(ARGV[i + 1]), tonumber(ARGV[i + 2])
  redis.call('ZREMRANGEBYSCORE', key, '-inf', string.format('%.17g', now - window))
  local count = redis.call('ZCARD', key)
  if count >= calls then
    local oldest = redis.call('ZRANGE', key, count - calls, count - calls, 'WITHSCORES')
    waits[#waits + 1] = string.format('%.17g', tonumber(oldest[2]) + window - now)
    full = true
  else
    waits[#waits + 1] = '0'
  end
end
if not full then
  for i = 4, #ARGV, 3 do
    local key, window = p .. 'r:' .. ARGV[i] .. '/' .. ARGV[i + 1], tonumber(ARGV[i + 2])
    redis.call('ZADD', key, ARGV[2], ARGV[2] .. ':' .. token .. ':' .. i)
    redis.call('PEXPIRE', key, math.ceil(window * 1000))
  end
end
return waits
"""


def _text(value: float) -> str:
    return repr(float(value))


class RedisRates:
    """The rate-limit step of `RedisStore` (whose client and error handling it uses)."""

    prefix: str
    _count_script: Any = None

    if TYPE_CHECKING:

        def _client(self) -> aioredis.Redis: ...

        def _failing(self) -> AbstractContextManager[None]: ...

    async def count_call(self, limits: Sequence[RateLimit], now: float) -> tuple[float, ...]:
        if not limits:
            return ()
        client = self._client()
        if self._count_script is None:
            self._count_script = client.register_script(COUNT_CALL)
        args: list[str] = [self.prefix, _text(now), secrets.token_hex(8)]
        for limit in limits:
            args += [limit.key, str(limit.calls), _text(limit.window)]
        with self._failing():
            waits = await self._count_script(keys=[], args=args, client=client)
        return tuple(max(0.0, float(wait)) for wait in waits)
