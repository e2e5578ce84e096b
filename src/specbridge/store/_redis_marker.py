"""`RedisStore`'s marker and guarantees (`Store.read_marker`, `write_marker`, `guarantees`): a hash
`marker` under the namespace, written by one script (only when there is none, or in place of a given
one); persistence read with `CONFIG GET appendonly` and `save`, which a managed Redis may have disabled
or renamed (then it could not be checked, and the start says so)."""

from __future__ import annotations

from typing import Any

from redis.exceptions import ResponseError

from ._marker import Guarantees, Marker, MarkerKind
from ._parts import RedisPart

WRITE = """
local there = redis.call('HGET', KEYS[1], 'id')
if (not there) or ARGV[4] == '*' or there == ARGV[4] then
  redis.call('HSET', KEYS[1], 'id', ARGV[1], 'created_at', ARGV[2], 'kind', ARGV[3])
end
return redis.call('HGETALL', KEYS[1])
"""


class RedisMarker(RedisPart):
    async def read_marker(self) -> Marker | None:
        with self._failing():
            row = await self._client().hgetall(self.prefix + "marker")  # type: ignore[misc]
        return _marker(row)

    async def write_marker(self, marker: Marker, *, replace: str | None) -> Marker:
        args = (marker.id, repr(float(marker.created_at)), str(marker.kind), replace or "")
        with self._failing():
            flat = await self._client().eval(WRITE, 1, self.prefix + "marker", *args)  # type: ignore[misc]
        found = _marker(dict(zip(flat[::2], flat[1::2], strict=True)))
        assert found is not None
        return found

    async def guarantees(self) -> Guarantees:
        client = self._client()
        with self._failing():
            version = int(await client.get(self.prefix + "schema_version") or 0)
        with self._failing():
            try:
                appendonly = (await client.config_get("appendonly")).get("appendonly", "")
                save = (await client.config_get("save")).get("save", "")
            except ResponseError as error:  # CONFIG disabled or renamed (managed Redis services often do)
                note = f"CONFIG GET is not allowed on this Redis ({str(error)[:80]})"
                return Guarantees("redis", version, (), None, note)
        durable = appendonly == "yes" or bool(save.strip())
        note = "" if durable else 'appendonly no and no snapshots (save ""): a restart starts empty'
        return Guarantees("redis", version, (("appendonly", appendonly), ("save", save)), durable, note)


def _marker(row: Any) -> Marker | None:
    if not row or "id" not in row:
        return None
    return Marker(str(row["id"]), float(row["created_at"]), MarkerKind(row["kind"]))
