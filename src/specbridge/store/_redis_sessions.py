"""`RedisStore`'s sessions (`Store.put_session` and its kin): a hash `m:ID` under the namespace with the
session's fields and a Redis TTL of its remaining life, and per kind and owner a sorted set `mo:…` of
its sessions' ids scored by their expiry (what `count_sessions` counts). Each step is one Lua script,
so a touch never brings back a session another instance just ended."""

from __future__ import annotations

from typing import Any

from .._json import dumps
from ._model import StoredSession
from ._parts import RedisPart, redis_number
from ._sql_sessions import session_from  # the row's fields are the hash's

# ARGV: prefix, id, kind, owner, data, created_at, last_seen, expires_at, now.
PUT = """
local p, id, kind, owner = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local key, index = p .. 'm:' .. id, p .. 'mo:' .. string.len(kind) .. ':' .. kind .. owner
local ttl = math.max(1, math.ceil((tonumber(ARGV[8]) - tonumber(ARGV[9])) * 1000))
redis.call('DEL', key)
redis.call('HSET', key, 'kind', kind, 'owner', owner, 'data', ARGV[5], 'created_at', ARGV[6],
  'last_seen', ARGV[7], 'expires_at', ARGV[8])
redis.call('PEXPIRE', key, ttl)
redis.call('ZREMRANGEBYSCORE', index, '-inf', ARGV[9])
redis.call('ZADD', index, ARGV[8], id)
if redis.call('PTTL', index) < ttl then redis.call('PEXPIRE', index, ttl) end
return 1
"""

# ARGV: prefix, id, expires_at, now. Answers 1 when the session was there (and not expired).
TOUCH = """
local p, id = ARGV[1], ARGV[2]
local key = p .. 'm:' .. id
local row = redis.call('HMGET', key, 'kind', 'owner', 'expires_at')
if not row[1] or tonumber(row[3]) <= tonumber(ARGV[4]) then return 0 end
redis.call('HSET', key, 'last_seen', ARGV[4])
if tonumber(row[3]) < tonumber(ARGV[3]) then
  local ttl = math.max(1, math.ceil((tonumber(ARGV[3]) - tonumber(ARGV[4])) * 1000))
  local index = p .. 'mo:' .. string.len(row[1]) .. ':' .. row[1] .. row[2]
  redis.call('HSET', key, 'expires_at', ARGV[3])
  redis.call('PEXPIRE', key, ttl)
  redis.call('ZADD', index, 'XX', ARGV[3], id)
  if redis.call('PTTL', index) < ttl then redis.call('PEXPIRE', index, ttl) end
end
return 1
"""

# ARGV: prefix, id. Answers 1 when there was a session to end.
END = """
local p, id = ARGV[1], ARGV[2]
local key = p .. 'm:' .. id
local row = redis.call('HMGET', key, 'kind', 'owner')
if not row[1] then return 0 end
redis.call('ZREM', p .. 'mo:' .. string.len(row[1]) .. ':' .. row[1] .. row[2], id)
return redis.call('DEL', key)
"""

# ARGV: prefix, kind, owner, now.
COUNT = """
local index = ARGV[1] .. 'mo:' .. string.len(ARGV[2]) .. ':' .. ARGV[2] .. ARGV[3]
redis.call('ZREMRANGEBYSCORE', index, '-inf', ARGV[4])
return redis.call('ZCARD', index)
"""


class RedisSessions(RedisPart):
    async def _session_script(self, source: str, *args: str) -> Any:
        scripts: dict[str, Any] = self.__dict__.setdefault("_session_scripts", {})
        client = self._client()
        script = scripts.get(source)
        if script is None or script.registered_client is not client:
            script = scripts[source] = client.register_script(source)
        with self._failing():
            return await script(keys=[], args=[self.prefix, *args])

    async def put_session(self, session: StoredSession, now: float) -> None:
        await self._session_script(
            PUT,
            session.id,
            session.kind,
            session.owner,
            dumps(session.data),
            redis_number(session.created_at),
            redis_number(session.last_seen),
            redis_number(session.expires_at),
            redis_number(now),
        )

    async def get_session(self, session_id: str, now: float) -> StoredSession | None:
        with self._failing():
            row = await self._client().hgetall(self.prefix + "m:" + session_id)  # type: ignore[misc]
        if not row or float(row.get("expires_at", 0)) <= now:
            return None
        return session_from(row | {"id": session_id})

    async def touch_session(self, session_id: str, expires_at: float, now: float) -> bool:
        return bool(
            await self._session_script(TOUCH, session_id, redis_number(expires_at), redis_number(now))
        )

    async def end_session(self, session_id: str) -> bool:
        return bool(await self._session_script(END, session_id))

    async def count_sessions(self, kind: str, owner: str, now: float) -> int:
        return int(await self._session_script(COUNT, kind, owner, redis_number(now)))

    async def sweep_sessions(self, now: float) -> int:
        """Redis forgets expired sessions by itself (their TTL); the counts drop them as they count."""
        return 0
