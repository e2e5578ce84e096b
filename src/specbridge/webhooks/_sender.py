"""Signed webhooks from the store's outbox: each new approval and each answer (to `approvals.webhook`),
and a client's own events — `call.completed`, and `approval.requested` / `approval.answered` of its own
calls — (to `clients.<id>.webhook`), POSTed the Standard Webhooks way, at least once, through the
egress policy. Each outbox row names its receiver (`approvals`, `client:<id>`): an event for two
receivers is two rows, written in the one store step that made the change.

Every delivery is signed (`_signing`): `webhook-id` (the outbox id, the same on every retry, so
receivers drop repeats), `webhook-timestamp` and `webhook-signature`.

`WebhookSender` leases due deliveries (`Store.lease_due`; another instance never gets the same one
while the lease runs, and of one stream — one receiver's events of one call — only the oldest left, so
they arrive in order), POSTs each without following redirects, `ack`s on 2xx and otherwise
reschedules it (`retry_at`) with exponential backoff and jitter, until `give_up_after` seconds after it
was created. Time comes from `clock`, so tests move a fake clock instead of sleeping.

Receivers are attempted **independently**: every delivery runs as a task of its own, at most
`per_receiver` at a time for one receiver (`approvals`, `client:<id>`) and `concurrency` in all, and
`run()` keeps leasing while attempts are in flight, leaving in the outbox (`lease_due(skip=…)`) the
deliveries of a receiver whose attempts are all taken. So a slow or hanging receiver (each attempt
bounded by `timeout`) delays only its own deliveries. A delivery that waited for a free attempt so long
that its lease would end before the attempt could is left for its next lease, never sent twice at once.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import anyio
import httpx
import orjson

from .._errors import ErrorCode, SpecbridgeError
from .._logging import log_event
from ..approvals import OPERATORS, client_receiver
from ..call import EgressPolicy, EgressTransport
from ..config import Config, WebhookConfig
from ..store import Delivery, Store
from ._signing import SECRET_PREFIX as SECRET_PREFIX
from ._signing import USER_AGENT as USER_AGENT
from ._signing import secret_key as secret_key
from ._signing import signature as signature
from ._signing import signed_headers as signed_headers
from ._signing import verify as verify

# What this sender delivers; other topics are left for their own senders.
TOPIC_PREFIXES = ("approval.", "call.completed")


def approval_route(config: Config | Callable[[], Config]) -> Callable[[Delivery], WebhookConfig | None]:
    """Where a delivery goes, under the config as it is now: for the operators (`approvals`), the
    webhook of the approval's API (`apis.<api>.approvals` or the top level's); for `client:<id>`, that
    client's webhook while it still subscribes to the event. None when there is none (any more).
    A row written before receivers existed goes where its payload says (a `call.` event to its client)."""

    current = config if callable(config) else lambda: config  # a gateway's follows its reloads

    def client_hook(client_id: str, topic: str) -> WebhookConfig | None:
        client = current().clients.get(client_id)
        hook = client.webhook if client is not None else None
        return hook if hook is not None and topic in hook.events else None

    def route(delivery: Delivery) -> WebhookConfig | None:
        data = delivery.payload.get("data") if isinstance(delivery.payload, Mapping) else None
        api = data.get("api") if isinstance(data, Mapping) else None
        receiver = delivery.receiver
        if receiver is not None and receiver != OPERATORS:
            client_id = receiver.removeprefix(client_receiver(""))
            return client_hook(client_id, delivery.topic) if receiver == client_receiver(client_id) else None
        if receiver is None and delivery.topic.startswith("call."):
            return client_hook(str(data.get("client")) if isinstance(data, Mapping) else "", delivery.topic)
        return current().approvals_for(api if isinstance(api, str) else None).webhook

    return route


@dataclass(frozen=True, slots=True)
class Backoff:
    """Delay after the n-th failed attempt: `base * 2**(n-1)`, capped at `cap`, times a jitter of ±25 %."""

    base: float = 2.0
    cap: float = 900.0

    def delay(self, attempts: int, jitter: float) -> float:
        grown: float = self.base * 2.0 ** min(max(0, attempts - 1), 40)
        return min(self.cap, grown) * (0.75 + 0.5 * jitter)


class DeliveryFailed(SpecbridgeError):
    code = ErrorCode.WEBHOOK_FAILED


PER_RECEIVER = 4  # attempts in flight to one receiver
CONCURRENCY = 32  # attempts in flight in all
LEGACY = ""  # rows written before receivers existed (routed by their payload): never skipped


class WebhookSender:
    """Delivers approval events from the outbox; `run()` until cancelled, or `run_once()` per step."""

    def __init__(
        self,
        store: Store,
        route: Callable[[Delivery], WebhookConfig | None],
        *,
        clock: Callable[[], float] = time.time,
        transport: httpx.AsyncBaseTransport | None = None,
        timeout: float = 10.0,
        lease: float = 60.0,
        backoff: Backoff | None = None,
        give_up_after: float = 86400.0,
        poll: float = 1.0,
        jitter: Callable[[], float] = random.random,
        per_receiver: int = PER_RECEIVER,
        concurrency: int = CONCURRENCY,
    ) -> None:
        self.store = store
        self.route = route
        self.clock = clock
        self.timeout = timeout
        self.lease = lease  # keep it above `timeout`: an attempt must end before another may lease it
        self.backoff = backoff or Backoff()
        self.give_up_after = give_up_after
        self.poll = poll
        self.jitter = jitter
        self.per_receiver = per_receiver
        self.concurrency = concurrency
        self._inner = transport  # tests inject one; the egress policy still applies in front of it
        self._clients: dict[tuple[str, ...], httpx.AsyncClient] = {}
        self._taken: dict[str, int] = {}  # receiver -> its deliveries leased and not yet finished
        self._slots: dict[str, anyio.Semaphore] = {}  # receiver -> its attempts in flight
        self._finished: anyio.Event | None = (
            None  # set when an attempt ends (`run`): a stream's next may be due
        )

    def _client(self, allow: tuple[str, ...]) -> httpx.AsyncClient:
        client = self._clients.get(allow)
        if client is None:
            transport = EgressTransport(EgressPolicy(allow=allow), self._inner)
            client = httpx.AsyncClient(
                transport=transport, follow_redirects=False, trust_env=False, timeout=self.timeout
            )
            self._clients[allow] = client
        return client

    async def aclose(self) -> None:
        clients, self._clients = self._clients, {}
        for client in clients.values():
            await client.aclose()

    async def run(self) -> None:
        """Lease what is due and start each attempt in the background, again as soon as attempts are
        started or finish, else every `poll` seconds; stops (cancelling attempts) when cancelled."""
        self._finished = anyio.Event()
        async with anyio.create_task_group() as attempts:
            while True:
                try:
                    started = await self._start_due(attempts)
                except SpecbridgeError as error:  # the store is unreachable: try again later
                    log_event("webhook outbox unavailable", level=logging.WARNING, code=str(error.code))
                    started = 0
                if not started:
                    with anyio.move_on_after(self.poll):
                        await self._finished.wait()
                    self._finished = anyio.Event()  # whatever finished, the next lease sees

    async def run_once(self, limit: int = 10) -> int:
        """Lease the due deliveries (up to `limit` at a time) and attempt them, all at once within the
        per-receiver limit, again while a lease hands out more (an acknowledged delivery lets the next
        of its stream go); how many were leased."""
        handled = 0
        for _ in range(limit):
            async with anyio.create_task_group() as attempts:
                started = await self._start_due(attempts, limit)
            handled += started
            if not started:
                break
        return handled

    async def _start_due(self, attempts: anyio.abc.TaskGroup, limit: int = 10) -> int:
        """Lease due deliveries for the attempts there is room for (none for a receiver whose attempts
        are all taken) and start each in `attempts`; how many were started."""
        room = self.concurrency - sum(self._taken.values())
        if room <= 0:
            return 0
        full = [receiver for receiver, taken in self._taken.items() if taken >= self.per_receiver]
        leased_at = self.clock()
        leased = await self.store.lease_due(
            leased_at, self.lease, min(limit, room), skip=[r for r in full if r != LEGACY]
        )
        for delivery in leased:
            receiver = delivery.receiver or LEGACY
            self._taken[receiver] = self._taken.get(receiver, 0) + 1
            if receiver not in self._slots:
                self._slots[receiver] = anyio.Semaphore(self.per_receiver)
            attempts.start_soon(self._attempt_leased, delivery, receiver, leased_at)
        return len(leased)

    async def _attempt_leased(self, delivery: Delivery, receiver: str, leased_at: float) -> None:
        try:
            async with self._slots[receiver]:
                if self.clock() + self.timeout > leased_at + self.lease:
                    return  # the lease would end during the attempt: left for its next lease
                await self._attempt(delivery)
        except SpecbridgeError as error:  # the store failed to record the outcome: leased again later
            log_event("webhook outbox unavailable", level=logging.WARNING, code=str(error.code))
        finally:
            self._taken[receiver] -= 1
            if not self._taken[receiver]:
                del self._taken[receiver], self._slots[receiver]
            if self._finished is not None:
                self._finished.set()

    async def _attempt(self, delivery: Delivery) -> None:
        now = self.clock()
        if not delivery.topic.startswith(TOPIC_PREFIXES):
            # Not ours (another sender's topic): hand it back when our lease would have ended anyway.
            await self.store.retry_at(delivery.id, now + self.lease, delivery.last_error or "")
            return
        target = self.route(delivery)
        if target is None:
            log_event("webhook dropped: no webhook configured", delivery=delivery.id, topic=delivery.topic)
            await self.store.ack(delivery.id)
            return
        try:
            await self._send(delivery, target, int(now))
        except DeliveryFailed as failure:
            await self._failed(delivery, failure.message)
            return
        log_event("webhook delivered", delivery=delivery.id, topic=delivery.topic, attempts=delivery.attempts)
        await self.store.ack(delivery.id)

    async def _send(self, delivery: Delivery, target: WebhookConfig, timestamp: int) -> None:
        try:
            keys = [secret_key(secret.reveal()) for secret in target.secrets]
        except (SpecbridgeError, ValueError) as error:
            # The message names a variable or file, never a value; the log is the operator's.
            raise DeliveryFailed(f"the webhook secret cannot be used: {error}") from None
        body = orjson.dumps(delivery.payload)
        headers = signed_headers(delivery.id, timestamp, body, keys)
        client = self._client(target.egress.allow)
        try:
            async with client.stream("POST", target.url, content=body, headers=headers) as response:
                status = response.status_code
        except SpecbridgeError as error:  # the egress policy refused the address
            raise DeliveryFailed(f"refused: {error.message}") from None
        except httpx.HTTPError as error:
            raise DeliveryFailed(f"the receiver could not be reached ({type(error).__name__})") from None
        if not 200 <= status < 300:
            raise DeliveryFailed(f"the receiver answered HTTP {status}")

    async def _failed(self, delivery: Delivery, error: str) -> None:
        now = self.clock()
        due = now + self.backoff.delay(delivery.attempts, self.jitter())
        fields: dict[str, Any] = {
            "delivery": delivery.id,
            "topic": delivery.topic,
            "attempts": delivery.attempts,
        }
        if due - delivery.created_at > self.give_up_after:
            log_event(
                "webhook given up",
                level=logging.ERROR,
                code=str(ErrorCode.WEBHOOK_FAILED),
                error=error,
                **fields,
            )
            await self.store.ack(delivery.id)
            return
        log_event(
            "webhook failed; will retry",
            level=logging.WARNING,
            code=str(ErrorCode.WEBHOOK_FAILED),
            error=error,
            retry_in=round(due - now, 1),
            **fields,
        )
        await self.store.retry_at(delivery.id, due, error)


def has_webhooks(config: Config) -> bool:
    """Whether the config names any webhook: the operators', an API's approvals one, a client's."""
    return (
        config.approvals.webhook is not None
        or any(api.approvals.webhook is not None for api in config.apis.values())
        or any(client.webhook is not None for client in config.clients.values())
    )


@asynccontextmanager
async def running_webhooks(
    store: Store, config: Config, *, current: Callable[[], Config] | None = None, **options: Any
) -> AsyncIterator[WebhookSender | None]:
    """The approvals webhook sender running in the background while the block runs (the gateway's
    lifespan), or None when no API has a webhook. `webhooks: {lease, timeout}` of the config set the
    sender's (`options` win); `current`, when given, is the config each delivery is routed by (the
    gateway's, after reloads). Leaving the block stops it and closes its clients."""
    if not has_webhooks(config):
        yield None
        return
    options = {"lease": config.webhooks.lease, "timeout": config.webhooks.timeout, **options}
    sender = WebhookSender(store, approval_route(current or config), **options)
    try:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(sender.run)
            try:
                yield sender
            finally:
                tasks.cancel_scope.cancel()
    finally:
        await sender.aclose()
