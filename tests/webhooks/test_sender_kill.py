"""`kill -9` of the real gateway while approval announcements wait in the outbox (their receiver answers
500): after a restart on the same store, once the receiver is back, every one arrives, verified by the
`standardwebhooks` package. The outbox is the store's, so nothing the killed process held is lost: each
event was fanned out to two receivers (the operators' webhook and the calling client's, which
subscribed to `approval.requested`), and both rows of each survive.

The config's `webhooks.lease` is short (3 s), so a delivery the kill caught mid-attempt is free to be
tried again seconds after the restart, not a minute later."""

from __future__ import annotations

import base64
import secrets
import signal
import threading
from pathlib import Path

import anyio
import pytest
from standardwebhooks import Webhook

from specbridge.access import key_sha256, new_key
from tests.support.approvals import ADMIN_KEY, approval_id
from tests.support.gateway import http_client, write_config
from tests.support.processes import gateway_process
from tests.support.stores import namespaces, store_url
from tests.support.upstream import RecordedRequest, Reply, Upstream, json_response

__all__ = ["namespaces", "store_url"]

WHSEC = "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()
CLIENT_WHSEC = "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()
CLIENT_KEY = new_key()
ORDERS = [{"shopId": "s1", "product": "p1", "quantity": n} for n in (1, 2, 3)]
# A bound on the waits, not a timing claim: retries back off from 2 s and a delivery the kill caught
# mid-attempt is free again once its 3 s lease has run out.
DELIVERED_WITHIN = 60


class Receiver(Upstream):
    """A webhook receiver that answers 500 until `up` is set; then 204, keeping what it accepted."""

    def __init__(self, expected: int) -> None:
        super().__init__()
        self.expected = expected
        self.up = threading.Event()
        self.refused_ids: set[str] = set()
        self.accepted: dict[str, RecordedRequest] = {}
        self.all_refused = threading.Event()
        self.all_accepted = threading.Event()
        self._lock = threading.Lock()
        self.route("/hook", self._hook)
        self.route("/client-hook", self._hook)

    def _hook(self, request: RecordedRequest) -> Reply:
        with self._lock:
            delivery = request.headers.get("webhook-id", "")
            if not self.up.is_set():
                self.refused_ids.add(delivery)
                if len(self.refused_ids) >= self.expected:
                    self.all_refused.set()
                return Reply(500, [("Content-Type", "text/plain")], b"down")
            self.accepted.setdefault(delivery, request)
            if len(self.accepted) >= self.expected:
                self.all_accepted.set()
            return Reply(204)


def webhook_config(tmp_path: Path, upstream: Upstream, receiver: Receiver, store: str) -> Path:
    allow = f"egress: {{allow: ['{receiver.address}']}}"
    mine = f"{{url: '{receiver.url}/client-hook', secret: env:SB_TEST_KILL_CLIENT, {allow}, events: [approval.requested]}}"
    clients = f"clients:\n  bot: {{key_sha256: {key_sha256(CLIENT_KEY)}, apis: [shop], webhook: {mine}}}\n"
    tools = "tools:\n  createOrder: {requires_approval: true}\n"
    path = write_config(tmp_path, upstream, tools=tools, clients=clients)
    hook = f"{{url: '{receiver.url}/hook', secret: env:SB_TEST_KILL_WEBHOOK, {allow}}}"
    path.write_text(
        path.read_text(encoding="utf-8")
        + f"admins:\n  ops: {{key_sha256: {key_sha256(ADMIN_KEY)}}}\n"
        + f"approvals: {{wait: 0, webhook: {hook}}}\nstore: '{store}'\n"
        + "webhooks: {lease: 3s, timeout: 2s}\n",
        encoding="utf-8",
    )
    return path


async def wait_for(event: threading.Event, seconds: float) -> None:
    with anyio.fail_after(seconds):
        while not await anyio.to_thread.run_sync(event.wait, 1.0):
            pass


async def test_announcements_pending_when_the_gateway_is_killed_arrive_after_its_restart(
    tmp_path: Path, upstream: Upstream, store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    upstream.route("/shops/s1/orders", json_response({"id": "o1"}, status=201))
    monkeypatch.setenv("SB_TEST_KILL_WEBHOOK", WHSEC)
    monkeypatch.setenv("SB_TEST_KILL_CLIENT", CLIENT_WHSEC)
    receiver = Receiver(expected=2 * len(ORDERS))  # each approval: the operators' row and the client's
    with receiver:
        config = webhook_config(tmp_path, upstream, receiver, store_url)
        async with gateway_process(config) as first:
            async with http_client(f"{first.base}/mcp", key=CLIENT_KEY) as client:
                ids = [approval_id(await client.call_tool("createOrder", order)) for order in ORDERS]
            # each was attempted at least once and refused: still in the outbox
            await wait_for(receiver.all_refused, DELIVERED_WITHIN)
            first.kill()
            with anyio.fail_after(30):
                await first.process.wait()
        assert first.process.returncode == -signal.SIGKILL
        assert receiver.accepted == {}

        receiver.up.set()
        async with gateway_process(config):
            await wait_for(receiver.all_accepted, DELIVERED_WITHIN)

    delivered = list(receiver.accepted.values())
    ops = [Webhook(WHSEC).verify(r.body, r.headers) for r in delivered if r.path == "/hook"]
    mine = [Webhook(CLIENT_WHSEC).verify(r.body, r.headers) for r in delivered if r.path == "/client-hook"]
    for events in (ops, mine):
        assert sorted(event["data"]["id"] for event in events) == sorted(ids)
        assert {event["type"] for event in events} == {"approval.requested"}
    assert all("bound" in event["data"] for event in ops) and not any(
        "bound" in event["data"] for event in mine
    )
    assert set(receiver.accepted) == receiver.refused_ids  # the same deliveries, retried under their ids
