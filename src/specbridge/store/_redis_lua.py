"""The Lua scripts that make the Redis store's multi-key steps atomic (Redis runs a script alone).

Keys are built inside the scripts from the namespace prefix (ARGV[1]), so a store spans one Redis
node or one Sentinel group, not a Cluster. Times travel as strings: `tonumber` keeps a double exact,
where cjson would round it to 14 digits.
"""

from __future__ import annotations

# Writes the outbox records ARGV[n] (a JSON list, or "" for none), each due at `due_at`; one with a
# stream joins `s:STREAM`, scored by creation time, whose first member is the only one leased.
ENQUEUE = """
local function enqueue(p, text)
  if text == '' then return end
  for _, record in ipairs(cjson.decode(text)) do
    local key = p .. 'o:' .. record.id
    for name, value in pairs(record) do
      if name ~= 'due_at' then redis.call('HSET', key, name, value) end
    end
    redis.call('ZADD', p .. 'due', record.due_at, record.id)
    if record.stream and record.stream ~= '' then
      redis.call('ZADD', p .. 's:' .. record.stream, record.created_at, record.id)
    end
  end
end
"""

SCRIPTS = (
    "ATTACH_OR_CREATE",
    "UPDATE_APPROVAL",
    "EXPIRE_DUE",
    "CLAIM",
    "SETTLE_CLAIM",
    "LEASE_DUE",
    "RETRY_AT",
    "ENQUEUE_ALL",
    "ACK",
)

# ARGV: prefix, records (see ENQUEUE)
ENQUEUE_ALL = ENQUEUE + "enqueue(ARGV[1], ARGV[2])\nreturn 1\n"

# ARGV: prefix, id: the delivery forgotten, out of the due set and its stream
ACK = """
local p, id = ARGV[1], ARGV[2]
local stream = redis.call('HGET', p .. 'o:' .. id, 'stream')
redis.call('DEL', p .. 'o:' .. id)
redis.call('ZREM', p .. 'due', id)
if stream and stream ~= '' then redis.call('ZREM', p .. 's:' .. stream, id) end
return 1
"""

ATTACH_OR_CREATE = (
    ENQUEUE
    + """
local p, fingerprint, now, record = ARGV[1], ARGV[2], ARGV[3], cjson.decode(ARGV[4])
local open = p .. 'open:' .. fingerprint
local existing = redis.call('GET', open)
if existing then
  local key = p .. 'a:' .. existing
  local h = redis.call('HMGET', key, 'status', 'expires_at', 'created_at', 'settled_at')
  if not h[1] or h[4] then
    redis.call('DEL', open)
  else
    if h[1] == 'pending' and tonumber(h[2]) <= tonumber(now) then  -- expired: open until reported once
      redis.call('HSET', key, 'status', 'expired')
      redis.call('ZREM', p .. 'status:pending', existing)
      redis.call('ZADD', p .. 'status:expired', h[3], existing)
    end
    return {0, redis.call('HGETALL', key)}
  end
end
local key = p .. 'a:' .. record.id
for name, value in pairs(record) do redis.call('HSET', key, name, value) end
redis.call('SET', open, record.id)
redis.call('SET', p .. 'last:' .. fingerprint, record.id)
redis.call('ZADD', p .. 'status:' .. record.status, record.created_at, record.id)
redis.call('ZADD', p .. 'all', record.created_at, record.id)
enqueue(p, ARGV[5])
return {1, redis.call('HGETALL', key)}
"""
)

UPDATE_APPROVAL = (
    ENQUEUE
    + """
local p, id = ARGV[1], ARGV[2]
local key = p .. 'a:' .. id
local cond, changes = cjson.decode(ARGV[3]), cjson.decode(ARGV[4])
local h = redis.call('HMGET', key, 'status', 'owner', 'expires_at', 'lease_until', 'settled_at', 'created_at',
  'fingerprint')
if not h[1] then return false end
local allowed = false
for _, status in ipairs(cond.statuses) do if status == h[1] then allowed = true end end
if not allowed then return false end
if cond.owner and h[2] ~= cond.owner then return false end
if cond.not_expired_at and not (tonumber(h[3]) > tonumber(cond.not_expired_at)) then return false end
if cond.lease_passed_at and not (h[4] and tonumber(h[4]) <= tonumber(cond.lease_passed_at)) then
  return false
end
if cond.unsettled and h[5] then return false end
for name, value in pairs(changes) do
  if value == cjson.null then redis.call('HDEL', key, name) else redis.call('HSET', key, name, value) end
end
if changes.status and changes.status ~= h[1] then
  redis.call('ZREM', p .. 'status:' .. h[1], id)
  redis.call('ZADD', p .. 'status:' .. changes.status, h[6], id)
end
if changes.settled_at and changes.settled_at ~= cjson.null then
  local open = p .. 'open:' .. h[7]
  if redis.call('GET', open) == id then redis.call('DEL', open) end
end
enqueue(p, ARGV[5])
return redis.call('HGETALL', key)
"""
)

EXPIRE_DUE = """
local p, now = ARGV[1], ARGV[2]
local count = 0
for _, id in ipairs(redis.call('ZRANGE', p .. 'status:pending', 0, -1)) do
  local key = p .. 'a:' .. id
  local h = redis.call('HMGET', key, 'expires_at', 'created_at', 'fingerprint')
  if h[1] and tonumber(h[1]) <= tonumber(now) then
    redis.call('HSET', key, 'status', 'expired')
    redis.call('ZREM', p .. 'status:pending', id)
    redis.call('ZADD', p .. 'status:expired', h[2], id)
    count = count + 1
  end
end
return count
"""

CLAIM = """
local p, name, owner, fingerprint, lease_until, expires_at, now, keep_ms = unpack(ARGV)
local key = p .. 'c:' .. name
local known = redis.call('HGET', key, 'expires_at')
if known and tonumber(known) <= tonumber(now) then
  redis.call('DEL', key)
  known = false
end
if known then return {0, redis.call('HGETALL', key)} end
redis.call('HSET', key, 'key', name, 'owner', owner, 'state', 'held', 'fingerprint', fingerprint,
  'lease_until', lease_until, 'expires_at', expires_at)
redis.call('PEXPIRE', key, keep_ms)
return {1, redis.call('HGETALL', key)}
"""

# ARGV: prefix, key, owner, action ('done' | 'forget' | 'unknown'), result, outbox records ('done')
SETTLE_CLAIM = (
    ENQUEUE
    + """
local key = ARGV[1] .. 'c:' .. ARGV[2]
local h = redis.call('HMGET', key, 'owner', 'state')
if h[1] ~= ARGV[3] or h[2] ~= 'held' then return 0 end
if ARGV[4] == 'forget' then redis.call('DEL', key)
elseif ARGV[4] == 'done' then
  redis.call('HSET', key, 'state', 'done', 'result', ARGV[5])
  enqueue(ARGV[1], ARGV[6])
else redis.call('HSET', key, 'state', 'unknown') end
return 1
"""
)

# ARGV: prefix, now, lease until, limit, receivers to leave alone (a JSON list)
LEASE_DUE = """
local p, now, lease_until, limit = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
local skip = {}
for _, receiver in ipairs(cjson.decode(ARGV[5] or '[]')) do skip[receiver] = true end
local items = {}
for _, id in ipairs(redis.call('ZRANGEBYSCORE', p .. 'due', '-inf', now, 'LIMIT', 0, 1000)) do
  table.insert(items, {tonumber(redis.call('HGET', p .. 'o:' .. id, 'created_at')), id})
end
table.sort(items, function(a, b) if a[1] == b[1] then return a[2] < b[2] end return a[1] < b[1] end)
local leased = {}
for i = 1, #items do
  if #leased >= limit then break end
  local id = items[i][2]
  local stream = redis.call('HGET', p .. 'o:' .. id, 'stream')
  local first = not skip[redis.call('HGET', p .. 'o:' .. id, 'receiver') or '']
  if first and stream and stream ~= '' then
    first = redis.call('ZRANGE', p .. 's:' .. stream, 0, 0)[1] == id
  end
  if first then
    redis.call('ZADD', p .. 'due', lease_until, id)
    redis.call('HINCRBY', p .. 'o:' .. id, 'attempts', 1)
    table.insert(leased, redis.call('HGETALL', p .. 'o:' .. id))
  end
end
return leased
"""

# ARGV: prefix, id, due, error (a delivery acked meanwhile stays gone)
RETRY_AT = """
local key = ARGV[1] .. 'o:' .. ARGV[2]
if redis.call('EXISTS', key) == 0 then return 0 end
redis.call('HSET', key, 'last_error', ARGV[4])
redis.call('ZADD', ARGV[1] .. 'due', ARGV[3], ARGV[2])
return 1
"""
