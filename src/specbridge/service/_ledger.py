"""The ledger: the one owner of the gateway's store for calls, and the one record of each logical call.

A logical call is one caller's call of one tool with one set of arguments (and the agent's idempotency
key, when it gave one): its fingerprint (`_fingerprint`). Its key's claim, its approval, its running
long call and its stored result are facets of that one call in the store; every way into an upstream
effect (the agent's call, the background sender, a long call, code that calls `CallService.call`)
reads them through `look_up` (`_look_up`) first and writes them through the one claim → send → store
step (`_once.once`).

    ledger = Ledger(lambda: config)        # one per gateway process; nothing opened yet
    await ledger.start()                   # the store, when the config needs it at start
    store = await ledger.open()            # ... or the first time a call needs it (a key)
    ledger.approvals_for("orders")         # the API's approvals on that store
    ledger.desk                            # where people answer (admin API, page), across reloads
    await ledger.approved.wait()           # an approval was given in this process (the sender)
"""

from __future__ import annotations

import logging
import secrets
import time
from collections import Counter
from collections.abc import Callable

import anyio

from .._errors import ErrorCode
from .._logging import log_event
from ..approvals import ApprovalError, Approvals
from ..config import Config
from ..store import FIRST, Approval, ClientApprovals, Page, Status, Store, persistence_warning
from ._approving import ApprovalGate, Desk, config_store


def store_needed(config: Config) -> bool:
    """Whether a gateway serving `config` opens the store at start: a tool needs approval, people answer
    here (admins), approvals or a client's events are announced, or calls may outlive their wait
    (`calls.long`). Otherwise no call touches it, until an agent sends an idempotency key or a rate
    limit applies (`open`)."""
    if config.admins or config.approvals.webhook is not None:
        return True
    if any(client.webhook is not None for client in config.clients.values()):
        return True
    for api in config.apis.values():
        if api.calls.long:
            return True
        if api.approvals.webhook is not None or any(tool.requires_approval for tool in api.tools.values()):
            return True
    return False


async def opened(config: Config) -> Store:
    """The gateway's store, started and marked (`Store.mark`: a store that later loses its data is
    noticed), with a warning when it may not keep its data across a restart (`persistence_warning`)."""
    store = config_store(config)
    await store.start()
    try:
        await store.mark(time.time())
        warning = persistence_warning(store.name, await store.guarantees())
    except BaseException:
        await store.close()
        raise
    if warning is not None:
        log_event("store may forget", level=logging.WARNING, reason=warning)
    return store


class Nudge:
    """Said when this process approves a call, so its sender sweeps at once instead of at its next poll."""

    def __init__(self) -> None:
        self._event = anyio.Event()

    def __call__(self) -> None:
        self._event.set()

    async def wait(self, seconds: float) -> None:
        """Returns once nudged (since the last wait) or after `seconds`."""
        with anyio.move_on_after(seconds):
            await self._event.wait()
        self._event = anyio.Event()


class Ledger:
    """The store of a running gateway and the approval gate on it: opened at start when the config
    needs them (else on first use), the gate rebuilt on every reload (on the same store: a changed
    `store:` needs a restart). Every part of the call service reaches the store through this one."""

    def __init__(
        self,
        config: Callable[[], Config],
        *,
        clock: Callable[[], float] = time.time,
        owner: str | None = None,
    ) -> None:
        self._config = config
        self.clock = clock
        self.owner = owner or secrets.token_hex(8)  # this process's claims, across reloads
        self.store: Store | None = None
        self.gate: ApprovalGate | None = None
        self.desk = LiveDesk(self)
        self.approved = Nudge()  # told of each approval given here (the sender sweeps at once)
        self.waiting: Counter[str] = Counter()  # approval ids calls of this process wait on now
        self._opening = anyio.Lock()

    def _gate(self, store: Store, config: Config) -> ApprovalGate:
        return ApprovalGate(store, config, clock=self.clock, owner=self.owner, waiting=self.waiting)

    async def open(self) -> Store:
        """The store, opened now if the gateway started without it: the first idempotency key (or rate
        limit) of a gateway that needed no store so far (a config that never uses one never makes it)."""
        if self.store is not None:  # the usual case: no lock to take
            return self.store
        async with self._opening:
            if self.store is None:
                config = self._config()
                store = await opened(config)
                self.store, self.gate = store, self._gate(store, config)
            return self.store

    async def start(self) -> None:
        config = self._config()
        if self.store is not None or not store_needed(config):
            return
        store = await opened(config)
        self.store, self.gate = store, self._gate(store, config)

    def reload(self, config: Config) -> str | None:
        """Rebuild the gate for `config`; what cannot change without a restart, said in words (or None)."""
        if self.store is None:
            return (
                "approvals, idempotency keys and long calls need the store, which opens at start: restart to use it"
                if store_needed(config)
                else None
            )
        self.gate = self._gate(self.store, config)
        return None

    def current(self) -> ApprovalGate:
        if self.gate is None:
            raise ApprovalError(
                "approvals are not available: the gateway started without a store",
                code=ErrorCode.STORE_UNAVAILABLE,
            )
        return self.gate

    def approvals_for(self, api: str) -> Approvals:
        """The approvals of `api` on the open store (its own settings, its webhook)."""
        return self.current().desk.for_api(api)

    async def aclose(self) -> None:
        store, self.store, self.gate = self.store, None, None
        if store is not None:
            await store.close()


class LiveDesk(Desk):
    """The desk of whichever gate the gateway serves now (the admin routes outlive reloads)."""

    def __init__(self, ledger: Ledger) -> None:
        self._ledger = ledger

    def _desk(self) -> Desk:
        return self._ledger.current().desk

    def for_api(self, api: str) -> Approvals:
        return self._desk().for_api(api)

    async def get(self, approval_id: str) -> Approval:
        return await self._desk().get(approval_id)

    async def repeat(self, approval: Approval) -> str | None:
        return await self._desk().repeat(approval)

    async def groups(self, status: Status, per_client: int) -> list[ClientApprovals]:
        return await self._desk().groups(status, per_client)

    async def list(
        self, status: Status | None = None, limit: int = 100, page: Page = FIRST
    ) -> list[Approval]:
        return await self._desk().list(status, limit, page)

    async def approve(self, approval_id: str, by: str) -> Approval:
        approved = await self._desk().approve(approval_id, by)
        self._ledger.approved()  # `approvals.send: on_answer`: the gateway sends it now
        return approved

    async def reject(self, approval_id: str, by: str, reason: str) -> Approval:
        return await self._desk().reject(approval_id, by, reason)
