"""A paused script in the store, so any gateway instance sharing it can go on with the script, once.

    script:<api>:<client>:<id>               the paused script (a sealed value): what it printed, how
                                             many API calls it made, its source, the call it waits on,
                                             the sandbox's snapshot, and its generation
    script-run:<api>:<client>:<id>:<gen>     the execute-once claim of going on with that generation

Going on with a script claims its generation (the store's claim: of two instances at once, one wins;
the other hears it is going on). The winner either pauses it again (the record replaced by the next
generation, then the claim completed with `{"paused": next}`), or ends it (the claim completed with
the result: what a repeated `resume` gets). A winner that dies leaves its claim to read as outcome
unknown once its lease passes: that generation never runs again, since its calls may have been made.
The key carries the API and the client, so another client's id finds nothing. A script id is 22
random URL-safe characters; anything else names no script. No table of its own: sealed values and
claims, which every backend has.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from typing import Any

import orjson

from ..store import Claim, Store

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
    generation: int = 0  # how many times it paused before this pause

    def encode(self) -> bytes:
        head = {
            "v": VERSION,
            "id": self.id,
            "source": self.source,
            "printed": self.printed,
            "calls": self.calls,
            "tool": self.tool,
            "approval": self.approval,
            "generation": self.generation,
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
            generation=int(head.get("generation", 0)),
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

    async def get(self, script: str) -> PausedScript | None:
        data = await self.store.get_sealed(_slot("script", self.api, self.client, script), self.now)
        return PausedScript.decode(data) if data is not None else None

    def _run(self, paused: PausedScript) -> str:
        return _slot("script-run", self.api, self.client, f"{paused.id}:{paused.generation}")

    async def claim(self, paused: PausedScript, owner: str, *, lease: float, keep: float) -> Claim:
        """Going on with this generation of the script: won by one caller, across instances."""
        await self.store.hold_once(self.now)  # a store that lost its data runs nothing once more
        return await self.store.claim(self._run(paused), owner, paused.id, lease, keep, self.now)

    async def complete(self, paused: PausedScript, owner: str, result: Any) -> None:
        await self.store.complete(self._run(paused), owner, result, self.now)

    async def abandon(self, paused: PausedScript, owner: str) -> None:
        """The run was cut off: its calls may have been made, so it never runs again."""
        await self.store.abandon(self._run(paused), owner, sent=True)
