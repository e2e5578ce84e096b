"""The config's `approvals:` on the store: one `Approvals` per API (its own `ApprovalsConfig`: wait,
expiry, who answers, webhook), the `Desk` people answer at (admin API, web page, command line), and the
`ApprovalService` that opens the gateway's store when the config needs it.

    store = open_store(config.store)            # then `async with store:`
    gate = ApprovalGate(store, config)
    approvals = gate.desk.for_api("orders")     # what a call's approval step (`_approval`) works with
    desk = gate.desk                            # for admin_app(...) and the command line
"""

from __future__ import annotations

import logging
import secrets
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence

import anyio

from .._errors import ErrorCode
from .._logging import log_event
from ..approvals import (
    OPERATORS,
    Announcer,
    ApprovalError,
    Approvals,
    approval_event,
    client_approval_json,
    client_receiver,
)
from ..config import ApprovalsConfig, Config
from ..store import (
    Announcement,
    Approval,
    ClientApprovals,
    Cursor,
    Status,
    Store,
    open_store,
    persistence_warning,
)


def config_store(config: Config) -> Store:
    """The store `store:` names (not started). The reader made a relative SQLite path absolute."""
    return open_store(config.store)


def announcer(config: Config, settings: ApprovalsConfig) -> Announcer:
    """Who hears of an approval event: the operators' webhook of its API (`settings.webhook`, the full
    record) and the webhook of the client whose call it is, if it subscribed to the event
    (`client_approval_json`: no bound values, no admin id). One outbox row each, so one receiver's
    failures never hold up or lose the other's."""

    def announce(topic: str, approval: Approval, now: float) -> Sequence[Announcement]:
        found = []
        if settings.webhook is not None:
            found.append(approval_event(topic, approval, now, receiver=OPERATORS))
        client = config.clients.get(approval.client)
        hook = client.webhook if client is not None else None
        if hook is not None and topic in hook.events:
            receiver = client_receiver(approval.client)
            found.append(approval_event(topic, approval, now, receiver=receiver, data=client_approval_json))
        return found

    return announce


class Desk:
    """Where people answer: reads any approval, and answers it through its API's `Approvals` (so the
    answer wakes that API's waiting calls at once and is announced where that API's webhook is)."""

    def __init__(self, approvals: Mapping[str, Approvals], default: Approvals) -> None:
        self._approvals = approvals
        self._default = default

    def for_api(self, api: str) -> Approvals:
        return self._approvals.get(api, self._default)

    async def get(self, approval_id: str) -> Approval:
        return await self._default.get(approval_id)

    async def groups(self, status: Status, per_client: int) -> list[ClientApprovals]:
        return await self._default.groups(status, per_client)

    async def list(
        self,
        status: Status | None = None,
        limit: int = 100,
        *,
        client: str | None = None,
        after: Cursor | None = None,
        oldest_first: bool = False,
    ) -> list[Approval]:
        return await self._default.list(status, limit, client=client, after=after, oldest_first=oldest_first)

    async def approve(self, approval_id: str, by: str) -> Approval:
        approval = await self.get(approval_id)
        return await self.for_api(approval.api).approve(approval_id, by)

    async def reject(self, approval_id: str, by: str, reason: str) -> Approval:
        approval = await self.get(approval_id)
        return await self.for_api(approval.api).reject(approval_id, by, reason)


class ApprovalGate:
    """One `Approvals` per API of the config on one store, and the desk people answer at."""

    def __init__(
        self,
        store: Store,
        config: Config,
        *,
        clock: Callable[[], float] = time.time,
        lease: float = 120.0,
        owner: str | None = None,
        waiting: Counter[str] | None = None,
    ) -> None:
        owner = owner or secrets.token_hex(8)
        waiting = waiting if waiting is not None else Counter()

        def made(settings: ApprovalsConfig) -> Approvals:
            return Approvals(
                store,
                settings,
                clock=clock,
                lease=lease,
                owner=owner,
                announce=announcer(config, settings),
                waiting=waiting,
            )

        self.store = store
        self.approvals = {name: made(config.approvals_for(name)) for name in config.apis}
        self.desk = Desk(self.approvals, made(config.approvals))


def store_needed(config: Config) -> bool:
    """Whether a gateway serving `config` opens the store: a tool needs approval, people answer here
    (admins), approvals or a client's events are announced, or calls may outlive their wait (`calls.long`). Otherwise no call
    touches it, until an agent sends an idempotency key (`open`)."""
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


class ApprovalService:
    """The store and the approval gate of a running gateway: opened at start when the config needs them,
    the gate rebuilt on every reload (on the same store: a changed `store:` needs a restart)."""

    def __init__(self) -> None:
        self.store: Store | None = None
        self.gate: ApprovalGate | None = None
        self.desk = LiveDesk(self)
        self._opening = anyio.Lock()
        self.waiting: Counter[str] = Counter()  # approval ids calls of this process wait on now
        self.owner = secrets.token_hex(8)  # this process's claims of approved calls, across reloads
        self.approved: Callable[[], None] = lambda: None  # told of each approval given here (the sender)

    def _gate(self, store: Store, config: Config) -> ApprovalGate:
        return ApprovalGate(store, config, owner=self.owner, waiting=self.waiting)

    async def open(self, config: Config) -> Store:
        """The store, opened now if the gateway started without it: the first idempotency key sent to a
        gateway that needed no store so far (so a config that never uses one never creates it)."""
        if self.store is not None:  # the usual case: no lock to take
            return self.store
        async with self._opening:
            if self.store is None:
                store = await opened(config)
                self.store, self.gate = store, self._gate(store, config)
            return self.store

    async def start(self, config: Config) -> None:
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

    def __init__(self, service: ApprovalService) -> None:
        self._service = service

    def _desk(self) -> Desk:
        return self._service.current().desk

    def for_api(self, api: str) -> Approvals:
        return self._desk().for_api(api)

    async def get(self, approval_id: str) -> Approval:
        return await self._desk().get(approval_id)

    async def groups(self, status: Status, per_client: int) -> list[ClientApprovals]:
        return await self._desk().groups(status, per_client)

    async def list(
        self,
        status: Status | None = None,
        limit: int = 100,
        *,
        client: str | None = None,
        after: Cursor | None = None,
        oldest_first: bool = False,
    ) -> list[Approval]:
        return await self._desk().list(status, limit, client=client, after=after, oldest_first=oldest_first)

    async def approve(self, approval_id: str, by: str) -> Approval:
        approved = await self._desk().approve(approval_id, by)
        self._service.approved()  # `approvals.send: on_answer`: the gateway sends it now
        return approved

    async def reject(self, approval_id: str, by: str, reason: str) -> Approval:
        return await self._desk().reject(approval_id, by, reason)
