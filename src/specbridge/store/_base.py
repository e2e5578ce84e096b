"""The store's interface: the few operations approvals, idempotency and webhooks need, each atomic.

Every backend (SQLite, PostgreSQL, Redis) passes the one contract suite in `tests/store/`. "Atomic"
means atomic across connections and processes sharing the store, not only inside one event loop:

- `attach_or_create` never makes two open approvals for one fingerprint;
- `update_approval` is a compare-and-set: of many concurrent callers with the same condition, one wins;
- `claim` hands a key to exactly one owner until the claim is forgotten (`keep` seconds);
- `lease_due` never hands one delivery to two workers while its lease runs, and hands out a delivery of
  a stream only when no older one of that stream is left in the outbox (one at a time, in order).

Where a step takes `announce` (one `Announcement`, a sequence of them — one per receiver — or None),
every announcement is written to the outbox in the same atomic step as the change, or none is.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Collection, Mapping, Sequence
from types import TracebackType
from typing import Self

from .._errors import ErrorCode, SpecbridgeError
from ._bounded import DEFAULT_TIMEOUT, bounded
from ._listing import FIRST, ClientApprovals, Page
from ._marker import Guarantees, Marker, MarkerKind, Watch, judge, lost_message
from ._model import (
    Announcement,
    Approval,
    Claim,
    Condition,
    Delivery,
    Json,
    Status,
    StoredFile,
    StoredSession,
)
from ._rates import RateLimit
from ._records import Announced


class StoreError(SpecbridgeError):
    """The store cannot be reached, opened or migrated; the message names the store, never a password."""

    code = ErrorCode.STORE_UNAVAILABLE


class StoreLost(StoreError):
    """The store lost its data while the gateway ran (`_marker`): calls that must happen at most once
    are refused until an operator acknowledges it."""


# `write_marker(..., replace=ANY)`: whatever marker is there.
ANY = "*"


class Store(ABC):
    """An open store; `open_store(url)` makes one, `start()` connects and migrates, `close()` ends it.

    Every operation of this interface, in every backend, is bounded in time (`timeout` seconds, then
    `StoreError`) and answers an id that cannot exist as "not found" (`_bounded`): put around each
    backend's methods when the backend class is made."""

    #: The store's URL without any password, for messages and logs.
    name: str
    #: Seconds any one operation may take before it fails with `StoreError` (`store-unavailable`).
    timeout: float = DEFAULT_TIMEOUT
    #: The driver waits on a cancelled step (`_bounded`): run each as a task abandoned when late.
    slow_to_cancel: bool = False
    #: What this instance remembers of the store's marker (`mark`, `hold_once`).
    watch: Watch | None = None

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        for operation in Store.__abstractmethods__ - {"close"}:
            # the backend's own method, or one of a topic's mixin it takes (`class X(RatesMixin, Store)`)
            owner = next((klass for klass in cls.__mro__ if operation in klass.__dict__), Store)
            if owner is not Store:
                setattr(cls, operation, bounded(operation, owner.__dict__[operation], StoreError))

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        await self.close()

    @abstractmethod
    async def start(self) -> None:
        """Connect and bring the schema up to date (safe when several instances start at once)."""

    @abstractmethod
    async def close(self) -> None: ...

    # Approvals

    @abstractmethod
    async def attach_or_create(
        self, approval: Approval, now: float, announce: Announced = None
    ) -> tuple[Approval, bool]:
        """The open approval with `approval.fingerprint` (not settled), or `approval` stored (and
        `announce` put in the outbox in the same step).

        A pending one whose `expires_at` has passed is marked expired on the way and returned: it stays
        open until its caller settles it (an agent is told it expired, once). Returns the record and
        whether it was created."""

    @abstractmethod
    async def get_approval(self, approval_id: str) -> Approval | None: ...

    @abstractmethod
    async def latest_approval(self, fingerprint: str) -> Approval | None:
        """The newest approval of the call `fingerprint` names, open or settled (the open one, when
        there is one, is the newest: it is made only once the one before it was settled)."""

    @abstractmethod
    async def list_approvals(
        self, status: Status | None = None, limit: int = 100, page: Page = FIRST
    ) -> list[Approval]:
        """Newest first (oldest first with `page.oldest_first`), at most `limit`, past `page.after` (the
        `Cursor` of the previous page's last record) in that order; with `page.client`, that client's
        only (`_listing`)."""

    @abstractmethod
    async def approval_groups(self, status: Status, per_client: int) -> list[ClientApprovals]:
        """Every client with approvals in `status`, the one waiting longest first: how many it has and its
        `per_client` oldest (`_listing`)."""

    @abstractmethod
    async def update_approval(
        self, approval_id: str, when: Condition, changes: Mapping[str, Json], announce: Announced = None
    ) -> Approval | None:
        """Apply `changes` (fields of `CHANGEABLE`) if the record meets `when`, with `announce` put in the
        outbox in the same step; the new record, or None (nothing changed, nothing announced)."""

    @abstractmethod
    async def expire_due(self, now: float) -> int:
        """Mark every pending approval whose `expires_at` has passed as expired (still open: not
        settled until an agent is told); how many were."""

    # Execute-once claims

    @abstractmethod
    async def claim(
        self, key: str, owner: str, fingerprint: str, lease: float, keep: float, now: float
    ) -> Claim:
        """Take `key` for `owner` unless someone holds it; the claim as it now stands (`won` if taken).

        `lease`: seconds the owner has to `complete`, after which the claim reads as unknown (never run
        again). `keep`: seconds the claim and its result are remembered (an idempotency TTL)."""

    @abstractmethod
    async def complete(
        self, key: str, owner: str, result: Json, now: float, announce: Announced = None
    ) -> bool:
        """Store the result of a claim `owner` holds, with `announce` (e.g. `call.completed`) put in the
        outbox in the same step; False if it is not theirs (or not held): nothing stored or announced."""

    @abstractmethod
    async def abandon(self, key: str, owner: str, *, sent: bool) -> bool:
        """Give up a held claim: `sent=False` forgets it (nothing happened, it may be claimed again),
        `sent=True` marks it unknown (something may have happened; it is never run again)."""

    @abstractmethod
    async def get_claim(self, key: str, now: float) -> Claim | None: ...

    @abstractmethod
    async def sweep(self, now: float) -> int:
        """Forget claims past their keep time (Redis forgets them by itself); how many were removed."""

    # Outbox

    async def enqueue(
        self,
        topic: str,
        payload: Json,
        now: float,
        due: float | None = None,
        *,
        receiver: str = "",
        stream: str = "",
    ) -> str:
        """Add a delivery due at `due` (default now), for `receiver`, ordered in `stream`; its id."""
        return await self._enqueue(Announcement(topic, payload, now, receiver, stream), due)

    @abstractmethod
    async def _enqueue(self, one: Announcement, due: float | None) -> str:
        """`enqueue` in a backend: the delivery `one` announces, due at `due` (None: at once)."""

    @abstractmethod
    async def lease_due(
        self, now: float, lease: float, limit: int = 10, *, skip: Collection[str] = ()
    ) -> list[Delivery]:
        """Up to `limit` due deliveries, oldest first, each hidden from other workers for `lease` seconds;
        of each stream only its oldest delivery still in the outbox (the next waits for its `ack`).
        Deliveries for the receivers in `skip` are left in the outbox, untouched (a sender whose
        attempts to them are all in flight)."""

    @abstractmethod
    async def ack(self, delivery_id: str) -> None:
        """The delivery succeeded: forget it."""

    @abstractmethod
    async def retry_at(self, delivery_id: str, due: float, error: str) -> None:
        """The delivery failed: due again at `due`, with the error kept for operators."""

    # Files

    @abstractmethod
    async def put_file(self, file: StoredFile, data: bytes) -> None:
        """Keep `data` under `file.id` until `file.expires_at` (the caller checked the size cap)."""

    @abstractmethod
    async def get_file(self, file_id: str, owner: str, now: float) -> tuple[StoredFile, bytes] | None:
        """The file and its bytes if `owner` owns it and it has not expired; None otherwise, alike
        for "no such file" and "someone else's", so an id never tells whether it exists."""

    @abstractmethod
    async def delete_file(self, file_id: str, owner: str, now: float) -> bool:
        """Remove a file `owner` owns (not expired); False when there was none to remove."""

    @abstractmethod
    async def sweep_files(self, now: float) -> int:
        """Remove files past their expiry (Redis removes them by itself); how many were."""

    @abstractmethod
    async def live_files(self, file_ids: Collection[str], now: float) -> set[str]:
        """Those of `file_ids` that name a file not yet expired, whoever owns it: for the files folder's
        sweep (`files.folder`), which removes bytes no record names any more."""

    # Rate limits (`_rates`)

    @abstractmethod
    async def count_call(self, limits: Sequence[RateLimit], now: float) -> tuple[float, ...]:
        """Count one call under every one of `limits` (distinct keys) when each has room, in one atomic
        step: all or none. For each limit, 0.0 when it had room, else the seconds until it has; when
        any is above 0.0, nothing was counted under any key."""

    # Sealed values (grants/: OAuth tokens toward the APIs, connect links, authorization states). The
    # caller seals them (AES-GCM under `store_key`); the store keeps bytes it cannot read.

    @abstractmethod
    async def put_sealed(self, key: str, data: bytes, expires_at: float, now: float) -> None:
        """Keep `data` under `key` until `expires_at`, replacing what was there (and forgetting values
        past their expiry, where the backend does not forget them by itself)."""

    @abstractmethod
    async def get_sealed(self, key: str, now: float) -> bytes | None:
        """The bytes under `key`, or None (nothing there, or expired)."""

    @abstractmethod
    async def take_sealed(self, key: str, now: float) -> bytes | None:
        """The bytes under `key`, removed in the same step: of many takers at once, one gets them."""

    # The store's own guarantees (`_marker`): its marker, whether it keeps its data across a restart.

    @abstractmethod
    async def read_marker(self) -> Marker | None:
        """The store's marker, or None when there is none."""

    @abstractmethod
    async def write_marker(self, marker: Marker, *, replace: str | None) -> Marker:
        """Write `marker` when there is none (`replace=None`), when the one there has the id `replace`,
        or whatever is there (`replace=ANY`), in one step; the marker there afterwards."""

    @abstractmethod
    async def guarantees(self) -> Guarantees:
        """The backend, its schema version, and the settings that decide whether data survives a restart."""

    async def mark(self, now: float) -> Marker:
        """A gateway opening the store: the marker written unless one is there, and remembered."""
        found = await self.write_marker(Marker.new(MarkerKind.STARTED, now), replace=None)
        self.watch = Watch(found, lost=found.kind is MarkerKind.LOST)
        return found

    async def hold_once(self, now: float) -> None:
        """Before a claim that makes a call happen at most once: `StoreLost` when the store lost its data
        since this gateway marked it (and no operator acknowledged it since). One read of the marker."""
        watch = self.watch
        if watch is None:
            return
        found = await self.read_marker()
        if judge(watch, found):
            return
        if found is None or found.kind is not MarkerKind.LOST:  # every gateway refuses from now on
            lost = Marker.new(MarkerKind.LOST, now)
            await self.write_marker(lost, replace=None if found is None else found.id)
        raise StoreLost(lost_message(self.name))

    # Sessions any instance serves (`_sql_sessions`, `_redis_sessions`): the gateway's handshake-era MCP
    # sessions and the admin page's sign-ins, each by the SHA-256 of the id its client holds.

    @abstractmethod
    async def put_session(self, session: StoredSession, now: float) -> None:
        """Keep `session` until its `expires_at`, replacing one with the same id (and forgetting sessions
        past their expiry, where the backend does not forget them by itself)."""

    @abstractmethod
    async def get_session(self, session_id: str, now: float) -> StoredSession | None:
        """The session `session_id` names, or None (never was, ended, or expired)."""

    @abstractmethod
    async def touch_session(self, session_id: str, expires_at: float, now: float) -> bool:
        """Note the session was used at `now` and keep it until `expires_at` at least (never shortened);
        False when there is no such session (ended or expired): nothing is brought back."""

    @abstractmethod
    async def end_session(self, session_id: str) -> bool:
        """Forget the session; False when there was none."""

    @abstractmethod
    async def count_sessions(self, kind: str, owner: str, now: float) -> int:
        """How many sessions of `kind` `owner` holds now (not expired)."""

    @abstractmethod
    async def sweep_sessions(self, now: float) -> int:
        """Forget sessions past their expiry (Redis forgets them by itself); how many were removed."""
