"""The Redis store: redis.asyncio, one hash per record, atomic steps as Lua scripts (`_redis_lua`).

Layout under the namespace prefix `NS:`: `a:ID` an approval, `open:FINGERPRINT` the id of the open
approval for one call, `last:FINGERPRINT` the id of its newest approval, `status:S` and `all` sorted sets of ids by creation time, `c:KEY` a claim
(with a Redis TTL of its `keep`), `o:ID` an outbox delivery and `due` the deliveries by due time,
`f:ID` a file (its record and its bytes in one hash, with a Redis TTL of the file's lifetime), and
`s:STREAM` the deliveries of one stream by creation time (only the first is leased).

One pool per instance (`_redis_pool`): at most `max_connections` (`?connections=`, 10 by default),
idle ones closed after a minute, no driver retries; file bytes are read undecoded on the same pool.
"""

from __future__ import annotations

import asyncio  # asyncio: the idle closer is a task for the store's life, outside any task group
import contextlib
import json
from collections.abc import Collection, Iterator, Mapping
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import redis.asyncio as aioredis
from redis.client import NEVER_DECODE
from redis.exceptions import RedisError

from . import _redis_lua as lua
from . import _sql
from ._base import StoreError
from ._bounded import DEFAULT_TIMEOUT
from ._model import Announcement, Approval, Claim, Condition, Delivery, Json, StoredFile
from ._records import (
    APPROVAL_FIELDS,
    Announced,
    announcements,
    approval_from,
    checked_changes,
    claim_from,
    delivery_from,
    delivery_values,
    encode,
    file_from,
    file_values,
)
from ._redis_listing import RedisListing
from ._redis_marker import RedisMarker
from ._redis_pool import IDLE, BoundedPool, bounded_pool, closing_idle
from ._redis_rates import RedisRates
from ._redis_sealed import RedisSealed
from ._redis_sessions import RedisSessions

# Redis needs no migration steps; the key guards against an older specbridge. 2: files (`f:ID`);
# 3: outbox receivers and streams (`s:STREAM`), which an older sender would route and order wrongly;
# 4: the newest approval of each call (`last:FINGERPRINT`), which an older gateway would not keep.
SCHEMA_VERSION = 4

# Deletes a file only for its owner, in one step.
DELETE_FILE = """
if redis.call('HGET', KEYS[1], 'owner') == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


def _text(value: Any) -> str:
    return repr(value) if isinstance(value, float) else str(value)


def _pairs(flat: list[Any]) -> dict[str, Any]:
    return dict(zip(flat[::2], flat[1::2], strict=True))


def _record(announce: Announcement, due: float | None = None) -> dict[str, str]:
    delivery_id, topic, payload, at, due_at, receiver, stream = delivery_values(announce, due)
    record = {"id": delivery_id, "topic": topic, "payload": payload, "created_at": _text(float(at))}
    record |= {"attempts": "0", "due_at": _text(float(due_at))}
    return record | {"receiver": receiver or "", "stream": stream or ""}


def _delivery(announce: Announced) -> str:
    """The outbox records for a script to write with its change, as a JSON list ("" for none)."""
    records = [_record(one) for one in announcements(announce)]
    return json.dumps(records) if records else ""


class RedisStore(RedisListing, RedisMarker, RedisRates, RedisSealed, RedisSessions):
    def __init__(
        self,
        url: str,
        *,
        prefix: str = "specbridge",
        max_connections: int = 10,
        timeout: float = DEFAULT_TIMEOUT,
        idle: float = IDLE,
    ) -> None:
        self.url = url
        self.prefix = prefix + ":"
        parts = urlsplit(url)
        host = parts.netloc.rpartition("@")[2]
        self.name = urlunsplit(parts._replace(netloc=f":***@{host}")) if parts.password else url
        self.max_connections = max_connections
        self.timeout = timeout
        self.idle = idle
        self.pool: BoundedPool | None = None
        self._redis: aioredis.Redis | None = None
        self._scripts: dict[str, Any] = {}
        self._idler: asyncio.Task[None] | None = None

    async def start(self) -> None:
        pool = bounded_pool(self.url, max_connections=self.max_connections, timeout=self.timeout)
        client = aioredis.Redis(connection_pool=pool)
        try:
            await client.ping()  # type: ignore[misc]
            version_key = self.prefix + "schema_version"
            await client.set(version_key, SCHEMA_VERSION, nx=True)
            current = int(await client.get(version_key) or 0)
            if current < SCHEMA_VERSION:
                await client.set(version_key, SCHEMA_VERSION)
                current = SCHEMA_VERSION
        except RedisError as error:
            await _shut(client, pool)
            raise StoreError(f"cannot open the store {self.name}: {error}") from None
        if current > SCHEMA_VERSION:
            await _shut(client, pool)
            raise StoreError(f"cannot open the store {self.name}: {_sql.too_new(current)}")
        self._redis, self.pool = client, pool
        for name in lua.SCRIPTS:
            self._scripts[name] = client.register_script(getattr(lua, name))
        self._scripts["DELETE_FILE"] = client.register_script(DELETE_FILE)
        self._idler = asyncio.get_running_loop().create_task(closing_idle(pool, self.idle))

    async def close(self) -> None:
        if self._idler is not None:
            idler, self._idler = self._idler, None
            idler.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await idler
        if self._redis is not None and self.pool is not None:
            client, pool, self._redis, self.pool = self._redis, self.pool, None, None
            await _shut(client, pool)

    @contextmanager
    def _failing(self) -> Iterator[None]:
        """A Redis error inside becomes a `StoreError` naming the store."""
        try:
            yield
        except RedisError as error:
            raise StoreError(f"the store {self.name} failed: {error}") from None

    def _client(self) -> aioredis.Redis:
        if self._redis is None:
            raise StoreError(f"the store {self.name} is not started")
        return self._redis

    async def _script(self, name: str, *args: Any) -> Any:
        self._client()
        with self._failing():
            return await self._scripts[name](keys=[], args=[self.prefix, *args])

    # Approvals

    async def attach_or_create(
        self, approval: Approval, now: float, announce: Announced = None
    ) -> tuple[Approval, bool]:
        record = {
            name: _text(value)
            for name in APPROVAL_FIELDS
            if (value := encode(name, getattr(approval, name))) is not None
        }
        created, flat = await self._script(
            "ATTACH_OR_CREATE",
            approval.fingerprint,
            _text(float(now)),
            json.dumps(record),
            _delivery(announce),
        )
        return approval_from(_pairs(flat)), bool(created)

    async def get_approval(self, approval_id: str) -> Approval | None:
        with self._failing():
            row = await self._client().hgetall(self.prefix + "a:" + approval_id)  # type: ignore[misc]
        return approval_from(row) if row else None

    async def latest_approval(self, fingerprint: str) -> Approval | None:
        client = self._client()
        with self._failing():  # `last:` since schema 4; before it, only the open one is known
            found = await client.get(self.prefix + "last:" + fingerprint) or await client.get(
                self.prefix + "open:" + fingerprint
            )
            row = await client.hgetall(self.prefix + "a:" + found) if found else None  # type: ignore[misc]
        return approval_from(row) if row else None

    async def update_approval(
        self, approval_id: str, when: Condition, changes: Mapping[str, Json], announce: Announced = None
    ) -> Approval | None:
        condition: dict[str, Any] = {"statuses": sorted(str(status) for status in when.statuses)}
        if when.owner is not None:
            condition["owner"] = when.owner
        if when.not_expired_at is not None:
            condition["not_expired_at"] = _text(float(when.not_expired_at))
        if when.lease_passed_at is not None:
            condition["lease_passed_at"] = _text(float(when.lease_passed_at))
        if when.unsettled:
            condition["unsettled"] = True
        values = {
            name: None if value is None else _text(value) for name, value in checked_changes(changes).items()
        }
        flat = await self._script(
            "UPDATE_APPROVAL", approval_id, json.dumps(condition), json.dumps(values), _delivery(announce)
        )
        return approval_from(_pairs(flat)) if flat else None

    async def expire_due(self, now: float) -> int:
        return int(await self._script("EXPIRE_DUE", _text(float(now))))

    # Claims

    async def claim(
        self, key: str, owner: str, fingerprint: str, lease: float, keep: float, now: float
    ) -> Claim:
        won, flat = await self._script(
            "CLAIM",
            key,
            owner,
            fingerprint,
            _text(float(now + lease)),
            _text(float(now + keep)),
            _text(float(now)),
            max(1, int(keep * 1000)),
        )
        return claim_from(_pairs(flat), now, won=bool(won))

    async def complete(
        self, key: str, owner: str, result: Json, now: float, announce: Announced = None
    ) -> bool:
        done = await self._script(
            "SETTLE_CLAIM", key, owner, "done", encode("result", result), _delivery(announce)
        )
        return bool(done)

    async def abandon(self, key: str, owner: str, *, sent: bool) -> bool:
        return bool(await self._script("SETTLE_CLAIM", key, owner, "unknown" if sent else "forget", "", ""))

    async def get_claim(self, key: str, now: float) -> Claim | None:
        with self._failing():
            row = await self._client().hgetall(self.prefix + "c:" + key)  # type: ignore[misc]
        if not row or float(row["expires_at"]) <= now:
            return None
        return claim_from(row, now)

    async def sweep(self, now: float) -> int:
        return 0  # each claim carries a Redis TTL of its keep time

    # Outbox

    async def _enqueue(self, one: Announcement, due: float | None) -> str:
        record = _record(one, due)
        await self._script("ENQUEUE_ALL", json.dumps([record]))
        return record["id"]

    async def lease_due(
        self, now: float, lease: float, limit: int = 10, *, skip: Collection[str] = ()
    ) -> list[Delivery]:
        leave = json.dumps(sorted(skip))
        rows = await self._script("LEASE_DUE", _text(float(now)), _text(float(now + lease)), limit, leave)
        return [delivery_from(_pairs(row)) for row in rows]

    async def ack(self, delivery_id: str) -> None:
        await self._script("ACK", delivery_id)

    async def retry_at(self, delivery_id: str, due: float, error: str) -> None:
        await self._script("RETRY_AT", delivery_id, _text(float(due)), error)

    # Files

    async def put_file(self, file: StoredFile, data: bytes) -> None:
        client = self._client()
        fields = dict(zip(_sql.FILE_FIELDS, file_values(file), strict=True))
        record: dict[str, str | bytes] = {
            name: _text(value) for name, value in fields.items() if value is not None
        }
        record["data"] = data
        key = self.prefix + "f:" + file.id
        # The TTL is the file's lifetime, not its wall-clock expiry: callers' clocks may be fake.
        ttl = max(1, int((file.expires_at - file.created_at) * 1000))
        with self._failing():
            async with client.pipeline(transaction=True) as pipe:
                pipe.hset(key, mapping=record)
                pipe.pexpire(key, ttl)
                await pipe.execute()

    async def get_file(self, file_id: str, owner: str, now: float) -> tuple[StoredFile, bytes] | None:
        client = self._client()
        with self._failing():  # the bytes as they are: this one reply is not decoded
            raw = await client.execute_command(  # type: ignore[no-untyped-call]
                "HGETALL", self.prefix + "f:" + file_id, **{NEVER_DECODE: True}
            )
        if not raw:
            return None
        data = raw.pop(b"data", b"")
        row = {name.decode(): value.decode() for name, value in raw.items()}
        if row.get("owner") != owner or float(row["expires_at"]) <= now:
            return None
        return file_from(row), bytes(data)

    async def delete_file(self, file_id: str, owner: str, now: float) -> bool:
        key = self.prefix + "f:" + file_id
        with self._failing():
            expires = await self._client().hget(key, "expires_at")  # type: ignore[misc]
        if expires is None or float(expires) <= now:
            return False
        self._client()
        with self._failing():
            return bool(await self._scripts["DELETE_FILE"](keys=[key], args=[owner]))

    async def sweep_files(self, now: float) -> int:
        return 0  # each file carries a Redis TTL of its lifetime

    async def live_files(self, file_ids: Collection[str], now: float) -> set[str]:
        ids, found = list(file_ids), set[str]()
        client = self._client()
        for at in range(0, len(ids), _sql.LIVE_BATCH):
            batch = ids[at : at + _sql.LIVE_BATCH]
            with self._failing():
                async with client.pipeline(transaction=False) as pipe:
                    for file_id in batch:
                        pipe.hget(self.prefix + "f:" + file_id, "expires_at")
                    expiries = await pipe.execute()
            found.update(
                i for i, expires in zip(batch, expiries, strict=True) if expires and float(expires) > now
            )
        return found


async def _shut(client: aioredis.Redis, pool: BoundedPool) -> None:
    await client.aclose()
    await pool.aclose()
