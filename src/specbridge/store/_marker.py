"""The store's own guarantees: whether it keeps its data across a restart, and whether it lost it while
the gateway ran.

A store that loses its data (a Redis without persistence restarted, a database put back empty) also
loses the records that make a call happen at most once: an idempotency key's claim, an approval's
execution, a long call's claim. Sent again after that, a non-idempotent request is done twice. So:

- **The marker.** When a gateway first opens the store it writes a marker (a random id and its creation
  time) unless one is there, and remembers the one that is (`Store.mark`). Before a call that relies on
  "once" claims anything, the gateway reads the marker again (`Store.hold_once`: one read of one small
  record, 0.1-0.3 ms). Gone, or replaced by another gateway's first opening: the store lost its data. The
  gateway then marks it lost (so every other gateway and a gateway started later refuse too) and
  refuses such calls with `store-unavailable` (`StoreLost`), never sending them again, until an operator
  runs `specbridge store check --acknowledge`, which writes an acknowledged marker; each gateway adopts
  it at its next check.
- **Persistence** (`Store.guarantees`): the backend's settings that decide whether data survives a
  restart (Redis `appendonly` and `save`; PostgreSQL `fsync`; SQLite's journal), read at start, where a
  store that keeps nothing is a warning (`persistence_warning`).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from enum import StrEnum


class MarkerKind(StrEnum):
    STARTED = "started"  # written by the first gateway that opened an empty store
    LOST = "lost"  # written by a gateway that found the store had lost its data
    ACKNOWLEDGED = "acknowledged"  # written by an operator (`specbridge store check --acknowledge`)


@dataclass(frozen=True, slots=True)
class Marker:
    id: str
    created_at: float
    kind: MarkerKind

    @classmethod
    def new(cls, kind: MarkerKind, now: float) -> Marker:
        return cls(secrets.token_hex(16), now, kind)


@dataclass(frozen=True, slots=True)
class Guarantees:
    """What a store promises about its data, as read from the store itself."""

    backend: str  # sqlite, postgresql, redis
    schema: int  # the schema version it holds
    settings: tuple[tuple[str, str], ...]  # the settings read, by name (empty when they could not be)
    durable: bool | None  # keeps its data across a restart; None: could not be checked
    note: str = ""  # why it could not be checked, or what the settings mean


# What may happen a second time after a restart of a store that keeps nothing.
TWICE = (
    "calls with an idempotency key, approved calls and long calls may be sent a second time (the records "
    "that make them happen once are gone)"
)


def persistence_warning(name: str, found: Guarantees) -> str | None:
    """The start's warning for a store that may not keep its data across a restart, or None."""
    if found.durable is True:
        return None
    settings = ", ".join(f"{key} {value!r}" for key, value in found.settings)
    if found.durable is None:
        return (
            f"could not check whether the store {name} keeps its data across a restart ({found.note}); if "
            f"it does not, after a restart {TWICE}. Turn persistence on (Redis: appendonly yes)"
        )
    if found.backend != "redis":
        return f"the store {name} may lose data ({found.note or settings}): after a crash {TWICE}"
    return (
        f"the store {name} keeps no data across a restart ({settings}): after a restart {TWICE}. Turn "
        "persistence on (Redis: appendonly yes); see docs/deployment.md"
    )


def lost_message(name: str) -> str:
    return (
        f"the store {name} lost its data while the gateway ran (the gateway's marker is gone), so what "
        "makes this call happen at most once is gone too; nothing was sent. An operator must run "
        "`specbridge store check --config FILE` (and `--acknowledge`) before such calls go on"
    )


@dataclass(slots=True)
class Watch:
    """What one gateway remembers of the store's marker (`Store.mark`, `Store.hold_once`)."""

    marker: Marker | None = None  # the marker this gateway adopted
    lost: bool = False  # it found the store had lost its data, and no acknowledgement since


def judge(watch: Watch, found: Marker | None) -> bool:
    """Whether "once" holds, given the marker a check read (`found`).

    The remembered marker still there: it holds. An operator's acknowledgement (another id): adopted, it
    holds again. No marker, another gateway's first marker (it found the store empty) or a lost marker:
    lost (the caller writes a lost marker in the first two cases, so that every gateway refuses)."""
    if watch.marker is None:  # never marked (a command, not a gateway): nothing to compare with
        return True
    if found is not None and found.id == watch.marker.id and found.kind is not MarkerKind.LOST:
        watch.lost = False
        return True
    if found is not None and found.kind is MarkerKind.ACKNOWLEDGED:
        watch.marker, watch.lost = found, False
        return True
    watch.lost = True
    return False
