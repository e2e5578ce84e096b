"""The signed webhook sender: approval events from the outbox reach a real receiver on loopback, each
verified by the `standardwebhooks` package (the library a receiver would use); failures are retried
with backoff on a fake clock, never followed through redirects, and the egress policy applies."""

from __future__ import annotations

import base64
import logging
import secrets
import socket
import threading
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from standardwebhooks import Webhook
from standardwebhooks.webhooks import WebhookVerificationError

from specbridge.approvals import Approvals
from specbridge.config import ApprovalsConfig, EgressConfig, Secret, WebhookConfig, config_from_data
from specbridge.store import Store, open_store
from specbridge.webhooks._sender import Backoff, WebhookSender, approval_route, secret_key, signature
from tests.support.upstream import RecordedRequest, Reply, Upstream, redirect, text_response

WHSEC = "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()
OLD_WHSEC = "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()


class Clock:
    """Starts at the real time (receivers reject timestamps more than 5 minutes off) and moves by hand."""

    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def receiver() -> Iterator[Upstream]:
    with Upstream() as server:
        server.route("/hook", text_response("ok"))
        yield server


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Store]:
    async with open_store(f"sqlite:///{tmp_path / 'state.db'}") as opened:
        yield opened


@pytest.fixture
def clock() -> Clock:
    return Clock()


def hook(receiver: Upstream, secret: Any = "env:SB_TEST_WEBHOOK", path: str = "/hook") -> dict[str, Any]:
    return {"url": receiver.url + path, "secret": secret, "egress": {"allow": [receiver.address]}}


def sender(store: Store, clock: Clock, webhook: dict[str, Any], **options: Any) -> WebhookSender:
    config = config_from_data(
        {"apis": {"shop": {"spec": "shop.yaml"}}, "approvals": {"webhook": webhook}}, source="specbridge.yaml"
    )
    return WebhookSender(store, approval_route(config), clock=clock, jitter=lambda: 0.5, **options)


async def announce_two(store: Store, clock: Clock) -> str:
    """A new approval and its rejection, both announced in the outbox; the approval's id."""
    approvals = Approvals(store, ApprovalsConfig(wait=0), clock=clock, announce=True)
    approval = await approvals.request(
        "shop", "refundOrder", "bot", {"orderId": "o-1"}, {"body.currency": "EUR"}, fingerprint="call-o-1"
    )
    clock.now += 1
    await approvals.reject(approval.id, "alice", "ask the customer first")
    return approval.id


async def request_two(store: Store, clock: Clock) -> None:
    """Two new approvals (two calls), each announced: two deliveries that do not wait on each other."""
    approvals = Approvals(store, ApprovalsConfig(wait=0), clock=clock, announce=True)
    for order in ("o-1", "o-2"):
        await approvals.request("shop", "refundOrder", "bot", {"orderId": order}, {}, fingerprint=order)


def verified(secret: str | bytes, request: RecordedRequest) -> Any:
    return Webhook(secret).verify(request.body, request.headers)


async def test_each_new_approval_and_answer_arrives_signed_and_verifiable(
    store: Store, clock: Clock, receiver: Upstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SB_TEST_WEBHOOK", WHSEC)
    approval_id = await announce_two(store, clock)
    webhooks = sender(store, clock, hook(receiver))
    try:
        assert await webhooks.run_once() == 2
        assert await webhooks.run_once() == 0  # acked: gone from the outbox
    finally:
        await webhooks.aclose()
    requested, answered = (verified(WHSEC, request) for request in receiver.requests)
    assert (requested["type"], answered["type"]) == ("approval.requested", "approval.answered")
    assert requested["data"]["id"] == answered["data"]["id"] == approval_id
    assert requested["data"]["bound"] == {"body.currency": "EUR"}
    assert (answered["data"]["status"], answered["data"]["reason"]) == ("rejected", "ask the customer first")
    assert len({request.headers["webhook-id"] for request in receiver.requests}) == 2
    with pytest.raises(WebhookVerificationError):
        verified(OLD_WHSEC, receiver.requests[0])


async def test_while_rotating_two_secrets_sign_and_either_verifies(
    store: Store, clock: Clock, receiver: Upstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SB_NEW", WHSEC)
    monkeypatch.setenv("SB_OLD", OLD_WHSEC)
    await announce_two(store, clock)
    webhooks = sender(store, clock, hook(receiver, ["env:SB_NEW", "env:SB_OLD"]))
    try:
        await webhooks.run_once()
    finally:
        await webhooks.aclose()
    request = receiver.requests[0]
    assert len(request.headers["webhook-signature"].split(" ")) == 2
    assert verified(WHSEC, request) == verified(OLD_WHSEC, request)
    with pytest.raises(WebhookVerificationError):
        verified("whsec_" + base64.b64encode(b"x" * 32).decode(), request)


async def test_a_raw_secret_is_used_as_its_bytes(
    store: Store, clock: Clock, receiver: Upstream, tmp_path: Path
) -> None:
    (tmp_path / "hook.key").write_text("a plain shared secret\n", encoding="utf-8")
    await announce_two(store, clock)
    webhooks = sender(store, clock, hook(receiver, f"file:{tmp_path / 'hook.key'}"))
    try:
        await webhooks.run_once()
    finally:
        await webhooks.aclose()
    assert verified(b"a plain shared secret", receiver.requests[0])["type"] == "approval.requested"


def test_the_signature_is_the_standard_webhooks_one() -> None:
    ours = signature("msg_1", 1_700_000_000, b'{"a":1}', [secret_key(WHSEC)])
    theirs = Webhook(WHSEC).sign("msg_1", _datetime(1_700_000_000), '{"a":1}')
    assert ours == theirs


def _datetime(seconds: int) -> Any:
    from datetime import UTC, datetime

    return datetime.fromtimestamp(seconds, UTC)


async def test_a_failing_receiver_gets_the_delivery_again_with_backoff_until_it_accepts(
    store: Store, clock: Clock, receiver: Upstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SB_TEST_WEBHOOK", WHSEC)
    up = {"ok": False}

    def flaky(request: RecordedRequest) -> Reply:
        return text_response("ok") if up["ok"] else text_response("down", status=503)

    receiver.route("/flaky", flaky)
    approvals = Approvals(store, ApprovalsConfig(wait=0), clock=clock, announce=True)
    await approvals.request("shop", "refundOrder", "bot", {"orderId": "o-1"}, {}, fingerprint="o-1")
    webhooks = sender(store, clock, hook(receiver, path="/flaky"), backoff=Backoff(base=2, cap=60))
    try:
        expected_delays = [2.0, 4.0, 8.0]
        for delay in expected_delays:
            assert await webhooks.run_once() == 1
            assert await webhooks.run_once() == 0  # not due again yet
            clock.now += delay - 0.01
            assert await webhooks.run_once() == 0
            clock.now += 0.01
        up["ok"] = True
        assert await webhooks.run_once() == 1
        clock.now += 3600
        assert await webhooks.run_once() == 0  # delivered and acked
    finally:
        await webhooks.aclose()
    assert [request.headers.get("webhook-id") for request in receiver.requests].count(
        receiver.requests[0].headers["webhook-id"]
    ) == 4
    verified(WHSEC, receiver.requests[-1])


async def test_an_unreachable_receiver_is_retried_later_not_dropped(
    store: Store, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SB_TEST_WEBHOOK", WHSEC)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    await request_two(store, clock)
    url = f"http://127.0.0.1:{port}/hook"
    webhooks = sender(
        store,
        clock,
        {"url": url, "secret": "env:SB_TEST_WEBHOOK", "egress": {"allow": [f"127.0.0.1:{port}"]}},
    )
    try:
        assert await webhooks.run_once() == 2
        clock.now += 3
        (again, _) = await store.lease_due(clock.now, 10)
        assert again.attempts == 2
        assert "could not be reached" in (again.last_error or "")
    finally:
        await webhooks.aclose()


async def test_a_redirect_is_not_followed_and_counts_as_a_failure(
    store: Store, clock: Clock, receiver: Upstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SB_TEST_WEBHOOK", WHSEC)
    receiver.route("/moved", redirect(receiver.url + "/hook", status=307))
    await request_two(store, clock)
    webhooks = sender(store, clock, hook(receiver, path="/moved"))
    try:
        await webhooks.run_once()
    finally:
        await webhooks.aclose()
    assert [request.path for request in receiver.requests] == ["/moved", "/moved"]
    clock.now += 3
    leased = await store.lease_due(clock.now, 10)
    assert len(leased) == 2
    assert all("HTTP 307" in (delivery.last_error or "") for delivery in leased)


async def test_the_egress_policy_refuses_a_private_receiver_not_listed_as_an_exception(
    store: Store, clock: Clock, receiver: Upstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SB_TEST_WEBHOOK", WHSEC)
    await request_two(store, clock)
    target = WebhookConfig(
        url=receiver.url + "/hook", secrets=(Secret("env:SB_TEST_WEBHOOK"),), egress=EgressConfig()
    )
    webhooks = WebhookSender(store, lambda delivery: target, clock=clock, jitter=lambda: 0.5)
    try:
        await webhooks.run_once()
    finally:
        await webhooks.aclose()
    assert receiver.requests == []
    clock.now += 3
    leased = await store.lease_due(clock.now, 10)
    assert all("refused" in (delivery.last_error or "") for delivery in leased)


async def test_a_delivery_is_given_up_after_the_retry_period_and_logged(
    store: Store,
    clock: Clock,
    receiver: Upstream,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setenv("SB_TEST_WEBHOOK", WHSEC)
    receiver.route("/down", text_response("down", status=500))
    await request_two(store, clock)
    webhooks = sender(
        store, clock, hook(receiver, path="/down"), backoff=Backoff(base=60, cap=60), give_up_after=100
    )
    caplog.set_level(logging.INFO, logger="specbridge.gateway")
    try:
        assert await webhooks.run_once() == 2
        clock.now += 60
        assert await webhooks.run_once() == 2  # the second failure would retry past 100 s: given up
        clock.now += 3600
        assert await webhooks.run_once() == 0
    finally:
        await webhooks.aclose()
    assert len(receiver.requests) == 4
    given_up = [record for record in caplog.records if record.getMessage() == "webhook given up"]
    assert len(given_up) == 2
    assert all(record.fields["code"] == "webhook-failed" for record in given_up)  # type: ignore[attr-defined]


async def test_an_unset_secret_is_a_failure_to_retry_and_sends_nothing(
    store: Store, clock: Clock, receiver: Upstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SB_TEST_WEBHOOK", raising=False)
    await request_two(store, clock)
    webhooks = sender(store, clock, hook(receiver))
    try:
        assert await webhooks.run_once() == 2
    finally:
        await webhooks.aclose()
    assert receiver.requests == []
    clock.now += 3
    leased = await store.lease_due(clock.now, 10)
    assert all("SB_TEST_WEBHOOK" in (delivery.last_error or "") for delivery in leased)


async def test_other_topics_stay_in_the_outbox_for_their_own_sender(
    store: Store, clock: Clock, receiver: Upstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SB_TEST_WEBHOOK", WHSEC)
    delivery_id = await store.enqueue("call.finished", {"data": {"api": "shop"}}, clock.now)
    webhooks = sender(store, clock, hook(receiver), lease=30)
    try:
        assert await webhooks.run_once() == 1
    finally:
        await webhooks.aclose()
    assert receiver.requests == []
    clock.now += 30
    (kept,) = await store.lease_due(clock.now, 10)
    assert kept.id == delivery_id


async def test_the_background_sender_delivers_while_running_and_is_absent_without_a_webhook(
    store: Store, clock: Clock, receiver: Upstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    from specbridge.webhooks import running_webhooks

    monkeypatch.setenv("SB_TEST_WEBHOOK", WHSEC)
    plain = config_from_data({"apis": {"shop": {"spec": "shop.yaml"}}}, source="specbridge.yaml")
    async with running_webhooks(store, plain) as nothing:
        assert nothing is None
    config = config_from_data(
        {"apis": {"shop": {"spec": "shop.yaml", "approvals": {"webhook": hook(receiver)}}}},
        source="specbridge.yaml",
    )
    arrived = threading.Event()

    def counting(request: RecordedRequest) -> Reply:
        if len(receiver.requests) >= 2:
            arrived.set()
        return text_response("ok")

    receiver.route("/hook", counting)
    await announce_two(store, clock)
    async with running_webhooks(store, config, clock=clock, poll=0.01) as sender:
        assert sender is not None
        assert await anyio.to_thread.run_sync(arrived.wait, 20)
    assert [verified(WHSEC, request)["type"] for request in receiver.requests] == [
        "approval.requested",
        "approval.answered",
    ]


async def test_one_calls_events_wait_for_each_other_and_other_calls_do_not_wait(
    store: Store, clock: Clock, receiver: Upstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SB_TEST_WEBHOOK", WHSEC)
    up = {"ok": False}
    receiver.route(
        "/flaky", lambda request: text_response("ok" if up["ok"] else "down", status=200 if up["ok"] else 503)
    )
    first = await announce_two(store, clock)  # requested, then answered: one stream
    approvals = Approvals(store, ApprovalsConfig(wait=0), clock=clock, announce=True)
    other = await approvals.request("shop", "refundOrder", "bot", {"orderId": "o-2"}, {}, fingerprint="o-2")
    webhooks = sender(store, clock, hook(receiver, path="/flaky"))
    try:
        assert await webhooks.run_once() == 2  # the first of each call; the answer waits for its request
        up["ok"] = True
        clock.now += 3
        assert await webhooks.run_once() == 3
    finally:
        await webhooks.aclose()
    seen = [
        (event["type"], event["data"]["id"]) for event in map(lambda r: verified(WHSEC, r), receiver.requests)
    ]
    # receivers are attempted concurrently: the two calls' first events arrive in either order
    assert sorted(seen[:2]) == sorted([("approval.requested", first), ("approval.requested", other.id)])
    mine = [kind for kind, approval in seen[2:] if approval == first]
    assert mine == ["approval.requested", "approval.answered"]  # retried first, then its answer


async def test_a_clients_event_goes_to_its_own_webhook_only_while_it_subscribes(
    store: Store, clock: Clock, receiver: Upstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    from specbridge.service import announcer

    monkeypatch.setenv("SB_TEST_WEBHOOK", WHSEC)
    monkeypatch.setenv("SB_TEST_CLIENT", OLD_WHSEC)

    def config(events: list[str]) -> Any:
        client = {
            "key_sha256": "a" * 64,
            "apis": ["shop"],
            "webhook": {**hook(receiver, "env:SB_TEST_CLIENT", "/bot"), "events": events},
        }
        return config_from_data(
            {"apis": {"shop": {"spec": "shop.yaml"}}, "clients": {"bot": client}}, source="specbridge.yaml"
        )

    subscribed = config(["approval.requested"])
    approvals = Approvals(
        store, ApprovalsConfig(wait=0), clock=clock, announce=announcer(subscribed, subscribed.approvals)
    )
    await approvals.request(
        "shop", "refundOrder", "bot", {"orderId": "o-1"}, {"body.currency": "EUR"}, fingerprint="o-1"
    )
    clock.now += 1
    await approvals.request("shop", "refundOrder", "bot", {"orderId": "o-2"}, {}, fingerprint="o-2")
    webhooks = WebhookSender(store, approval_route(subscribed), clock=clock)
    try:
        (first, _) = await store.lease_due(clock.now, 0)  # handed out again at once (a zero lease)
        await webhooks._attempt(first)
    finally:
        await webhooks.aclose()
    unsubscribed = WebhookSender(store, approval_route(config(["call.completed"])), clock=clock)
    try:
        assert await unsubscribed.run_once() == 1  # the second: dropped, the client no longer wants it
    finally:
        await unsubscribed.aclose()
    (request,) = receiver.requests
    assert request.path == "/bot"
    event = verified(OLD_WHSEC, request)
    assert event["type"] == "approval.requested" and event["data"]["arguments"] == {"orderId": "o-1"}
    assert "bound" not in event["data"]
    assert await store.lease_due(clock.now + 3600, 10) == []


class Held:
    """A receiver route that answers nothing, not even a status line, until the test lets it go
    (bounded), and tells how many requests arrived."""

    def __init__(self) -> None:
        self.go = threading.Event()
        self.count = 0
        self._arrived = threading.Condition()

    def responder(self, request: RecordedRequest) -> Reply:
        with self._arrived:
            self.count += 1
            self._arrived.notify_all()
        return Reply(200, [("Content-Type", "text/plain")], b"ok", hold=self.go, held=30)

    def wait_for(self, count: int, timeout: float = 20) -> bool:
        with self._arrived:
            return self._arrived.wait_for(lambda: self.count >= count, timeout)


async def test_a_hanging_receiver_delays_only_its_own_deliveries(
    store: Store, receiver: Upstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SB_TEST_WEBHOOK", WHSEC)
    held = Held()
    arrived = threading.Event()
    receiver.route("/slow", held.responder)
    receiver.route("/hook", lambda request: (arrived.set(), text_response("ok"))[1])
    allow = EgressConfig(allow=(receiver.address,))
    secrets_ = (Secret("env:SB_TEST_WEBHOOK"),)
    hooks = {
        "client:slow": WebhookConfig(receiver.url + "/slow", secrets_, allow),
        "approvals": WebhookConfig(receiver.url + "/hook", secrets_, allow),
    }
    now = time.time()
    for call in range(5):  # five calls' events for the hanging receiver first, each its own stream
        await store.enqueue(
            "call.completed", {"n": call}, now, receiver="client:slow", stream=f"client:slow|call:{call}"
        )
    await store.enqueue("approval.requested", {"n": "operators"}, now + 1, receiver="approvals")
    webhooks = WebhookSender(
        store,
        lambda delivery: hooks.get(delivery.receiver or ""),
        timeout=30,
        lease=60,
        per_receiver=2,
        poll=0.05,
    )
    try:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(webhooks.run)
            delivered = await anyio.to_thread.run_sync(arrived.wait, 20)
            two_held = await anyio.to_thread.run_sync(held.wait_for, 2)
            slow_so_far = held.count
            held.go.set()
            all_five = await anyio.to_thread.run_sync(held.wait_for, 5)
            tasks.cancel_scope.cancel()
    finally:
        await webhooks.aclose()
    assert delivered and two_held, "the operators' delivery waited behind the hanging receiver"
    assert slow_so_far == 2  # its per-receiver limit: the other three stayed in the outbox
    assert all_five
