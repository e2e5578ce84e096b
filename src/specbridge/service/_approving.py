"""The config's `approvals:` on the store: one `Approvals` per API (its own `ApprovalsConfig`: wait,
expiry, who answers, webhook), and the `Desk` people answer at (admin API, web page, command line). The
gateway's store itself is the ledger's (`_ledger.Ledger`), which builds a gate on it.

    store = open_store(config.store)            # then `async with store:`
    gate = ApprovalGate(store, config)
    approvals = gate.desk.for_api("orders")     # what a call's approval step (`_approval`) works with
    desk = gate.desk                            # for admin_app(...) and the command line
"""

from __future__ import annotations

import secrets
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence

from ..approvals import (
    OPERATORS,
    Announcer,
    ApprovalError,
    Approvals,
    approval_event,
    client_approval_json,
    client_receiver,
    repeat_note,
)
from ..config import ApprovalsConfig, Config
from ..store import FIRST, Announcement, Approval, ClientApprovals, Page, Status, Store, open_store


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

    async def repeat(self, approval: Approval) -> str | None:
        """For a repeat (an approval of a call sent or answered before, `repeat_of`), how it names the
        one before: `same call as <id>, done (HTTP 200) 2 h ago`; None for a first approval."""
        if approval.repeat_of is None:
            return None
        try:
            earlier = await self.get(approval.repeat_of)
        except ApprovalError:
            return f"same call as {approval.repeat_of}"
        return repeat_note(earlier, self._default.clock())

    async def groups(self, status: Status, per_client: int) -> list[ClientApprovals]:
        return await self._default.groups(status, per_client)

    async def list(
        self, status: Status | None = None, limit: int = 100, page: Page = FIRST
    ) -> list[Approval]:
        return await self._default.list(status, limit, page)

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
