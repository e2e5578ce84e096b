"""A paused script in the store, so any gateway instance sharing it can go on with the script, once.

    script:<api>:<client>:<id>        the paused script: what it printed, how many API calls it made,
                                      its source, the call it waits on and the sandbox's snapshot
    script-done:<api>:<client>:<id>   the end of a script that was paused once: what a repeated
                                      `resume` gets (for DONE_KEEP)
    script-running:<api>:<client>:<id>  a script being resumed now (for the call's deadline)

Both are sealed values of the store (its atomic put / get / take of bytes), no table of their own.
Going on takes the paused record (`take_sealed`: of two instances resuming at once, one gets it), and
either puts it back (still waiting: the call still awaits its approval), or puts the script's end in
its place. The key carries the API and the client, so another client's id finds nothing. A script id
is 22 random URL-safe characters; anything else names no script.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from typing import Any

import orjson

from ..store import Store

DONE_KEEP = 15 * 60.0  # seconds a resumed script's end answers a repeated `resume`
_ID = re.compile(r"[A-Za-z0-9_-]{22}")
VERSION = 1


def new_script_id() -> str:
    return secrets.token_urlsafe(16)


def is_script_id(value: str) -> bool:
    return _ID.fullmatch(value) is not None


@dataclass(frozen=True, slots=True)
class PausedScript:
    """What the store keeps of a paused script (`blob`: the sandbox's snapshot, opaque)."""

    id: str
    source: str
    printed: str
    calls: int  # API calls made before the one it waits on
    tool: str  # the call it waits on
    approval: str | None
    blob: bytes

    def encode(self) -> bytes:
        head = {
            "v": VERSION,
            "id": self.id,
            "source": self.source,
            "printed": self.printed,
            "calls": self.calls,
            "tool": self.tool,
            "approval": self.approval,
        }
        return orjson.dumps(head) + b"\n" + self.blob

    @classmethod
    def decode(cls, data: bytes) -> PausedScript | None:
        head_bytes, _, blob = data.partition(b"\n")
        try:
            head: Any = orjson.loads(head_bytes)
        except orjson.JSONDecodeError:
            return None
        if not isinstance(head, dict) or head.get("v") != VERSION or not blob:
            return None
        return cls(
            id=str(head["id"]),
            source=str(head["source"]),
            printed=str(head["printed"]),
            calls=int(head["calls"]),
            tool=str(head["tool"]),
            approval=head.get("approval"),
            blob=blob,
        )


def _slot(kind: str, api: str, client: str | None, script: str) -> str:
    return f"{kind}:{api}:{client or ''}:{script}"


class Scripts:
    """The paused scripts of one API and client in `store`."""

    def __init__(self, store: Store, api: str, client: str | None, now: float) -> None:
        self.store, self.api, self.client, self.now = store, api, client, now

    async def keep(self, paused: PausedScript, until: float) -> None:
        await self.store.put_sealed(
            _slot("script", self.api, self.client, paused.id), paused.encode(), until, self.now
        )

    async def take(self, script: str, *, lease: float) -> PausedScript | None:
        """The paused script, taken: nobody else goes on with it meanwhile (for `lease` seconds, a
        repeated `resume` hears that it is going on)."""
        data = await self.store.take_sealed(_slot("script", self.api, self.client, script), self.now)
        if data is None:
            return None
        running = _slot("script-running", self.api, self.client, script)
        await self.store.put_sealed(running, b"1", self.now + max(lease, 1.0), self.now)
        return PausedScript.decode(data)

    async def running(self, script: str) -> bool:
        return (
            await self.store.get_sealed(_slot("script-running", self.api, self.client, script), self.now)
            is not None
        )

    async def finish(self, script: str, end: Any) -> None:
        """Keep how a resumed script ended, for a repeated `resume`."""
        slot = _slot("script-done", self.api, self.client, script)
        await self.store.put_sealed(slot, orjson.dumps(end), self.now + DONE_KEEP, self.now)

    async def ended(self, script: str) -> Any:
        data = await self.store.get_sealed(_slot("script-done", self.api, self.client, script), self.now)
        return orjson.loads(data) if data is not None else None
