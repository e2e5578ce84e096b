"""`Store.list_approvals` and `Store.approval_groups` on Redis (`_listing`): a Lua script walks the
state's sorted set (`status:S`, or `all`) in the listing's order from the cursor, so a page, a client's
page or every client's count is one step; the records are then read in one pipeline.

In a sorted set, members of one score come in the order of their ids, as `ORDER BY created_at, id`
gives them on SQL: the cursor's (score, id) is compared the same way.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

import redis.asyncio as aioredis

from ._listing import FIRST, ClientApprovals, Page
from ._model import Approval, Status
from ._parts import redis_number
from ._records import approval_from

# ARGV: prefix, index, "newest"|"oldest", cursor score ("" for none), cursor id, "1" to filter on client,
# client, limit. Walks the set a batch at a time from the cursor's score (each batch starting where the
# last ended: its score, past the members of that score already seen). Answers ids.
LIST = """
local p, index, newest = ARGV[1], ARGV[1] .. ARGV[2], ARGV[3] == 'newest'
local cut, after_id, filtered, client, limit = ARGV[4], ARGV[5], ARGV[6] == '1', ARGV[7], tonumber(ARGV[8])
local from = cut ~= '' and cut or (newest and '+inf' or '-inf')
local to = newest and '-inf' or '+inf'
local cut_score = cut ~= '' and tonumber(cut) or nil
local found, seen, batch = {}, 0, 500
while #found < limit do
  local page
  if newest then
    page = redis.call('ZREVRANGEBYSCORE', index, from, to, 'WITHSCORES', 'LIMIT', seen, batch)
  else
    page = redis.call('ZRANGEBYSCORE', index, from, to, 'WITHSCORES', 'LIMIT', seen, batch)
  end
  if #page == 0 then return found end
  local first_score, last_score, run = tonumber(page[2]), nil, 0
  for i = 1, #page, 2 do
    local id, score = page[i], tonumber(page[i + 1])
    local past = true
    if cut_score and score == cut_score then
      if newest then past = id < after_id else past = id > after_id end
    end
    if past and (not filtered or redis.call('HGET', p .. 'a:' .. id, 'client') == client) then
      found[#found + 1] = id
      if #found >= limit then return found end
    end
    if score == last_score then run = run + 1 else last_score, run = score, 1 end
  end
  if #page < 2 * batch then return found end
  if tonumber(from) == last_score then seen = seen + run else seen = run end
  from = string.format('%.17g', last_score)
end
return found
"""

# ARGV: prefix, status, how many of each client's oldest. Answers per client, the longest wait first:
# client, count, oldest score, n, then n ids.
GROUPS = """
local p, per = ARGV[1], tonumber(ARGV[3])
local members = redis.call('ZRANGE', p .. 'status:' .. ARGV[2], 0, -1, 'WITHSCORES')
local order, groups = {}, {}
for i = 1, #members, 2 do
  local client = redis.call('HGET', p .. 'a:' .. members[i], 'client')
  if client then
    local group = groups[client]
    if not group then
      group = {count = 0, oldest = members[i + 1], ids = {}}
      groups[client] = group
      order[#order + 1] = client
    end
    group.count = group.count + 1
    if #group.ids < per then group.ids[#group.ids + 1] = members[i] end
  end
end
local out = {}
for _, client in ipairs(order) do
  local group = groups[client]
  out[#out + 1] = client
  out[#out + 1] = tostring(group.count)
  out[#out + 1] = group.oldest
  out[#out + 1] = tostring(#group.ids)
  for _, id in ipairs(group.ids) do out[#out + 1] = id end
end
return out
"""


class RedisListing:
    """The listings of `RedisStore` (whose client and error handling they use)."""

    prefix: str
    _list_script: Any = None
    _groups_script: Any = None

    if TYPE_CHECKING:

        def _client(self) -> aioredis.Redis: ...

        def _failing(self) -> AbstractContextManager[None]: ...

    async def list_approvals(
        self, status: Status | None = None, limit: int = 100, page: Page = FIRST
    ) -> list[Approval]:
        redis = self._client()
        if self._list_script is None:
            self._list_script = redis.register_script(LIST)
        args = [
            self.prefix,
            "all" if status is None else f"status:{status}",
            "oldest" if page.oldest_first else "newest",
            "" if page.after is None else redis_number(page.after.created_at),
            "" if page.after is None else page.after.id,
            "0" if page.client is None else "1",
            page.client or "",
            str(limit),
        ]
        with self._failing():
            ids = await self._list_script(keys=[], args=args, client=redis)
            return await self._records(redis, ids)

    async def approval_groups(self, status: Status, per_client: int) -> list[ClientApprovals]:
        redis = self._client()
        if self._groups_script is None:
            self._groups_script = redis.register_script(GROUPS)
        with self._failing():
            flat = await self._groups_script(
                keys=[], args=[self.prefix, str(status), str(per_client)], client=redis
            )
            found: list[tuple[str, int, float, list[str]]] = []
            at = 0
            while at < len(flat):
                count = int(flat[at + 3])
                found.append(
                    (flat[at], int(flat[at + 1]), float(flat[at + 2]), flat[at + 4 : at + 4 + count])
                )
                at += 4 + count
            records = await self._records(redis, [approval_id for *_, ids in found for approval_id in ids])
        by_id = {approval.id: approval for approval in records}
        return [
            ClientApprovals(name, count, oldest_at, tuple(by_id[i] for i in ids if i in by_id))
            for name, count, oldest_at, ids in found
        ]

    async def _records(self, redis: aioredis.Redis, ids: list[str]) -> list[Approval]:
        async with redis.pipeline(transaction=False) as pipe:
            for approval_id in ids:
                pipe.hgetall(self.prefix + "a:" + approval_id)
            rows = await pipe.execute()
        return [approval_from(row) for row in rows if row]
