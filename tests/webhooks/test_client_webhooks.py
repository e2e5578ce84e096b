"""Approval events fanned out to the client whose call it is, end to end: the real gateway over
Streamable HTTP with the SDK client and client keys, a person answering through the admin API, three
receivers on loopback verifying with the `standardwebhooks` package, on SQLite, PostgreSQL and Redis.

A client subscribed to `approval.requested` / `approval.answered` gets both for its own calls, in order,
without the operator-only fields; a client that did not subscribe gets none; the operators' webhook
still gets every event with the full record."""

from __future__ import annotations

import base64
import secrets
import threading
from pathlib import Path
from typing import Any

import anyio
import pytest
from standardwebhooks import Webhook

from specbridge.access import key_sha256, new_key
from specbridge.store import open_store
from tests.support.approvals import ADMIN_KEY, admin, approval_id
from tests.support.gateway import http_client, running_gateway, write_config
from tests.support.stores import namespaces, store_url
from tests.support.upstream import RecordedRequest, Reply, Upstream, json_response

__all__ = ["namespaces", "store_url"]

SECRETS = {
    name: "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode() for name in ("OPS", "BOT", "QUIET")
}
BOT_KEY, QUIET_KEY = new_key(), new_key()
ORDER = {"shopId": "s1", "product": "p1", "quantity": 2}
BOUND = {"path.shopId": "s1"}  # the operator's value: the model never sees it, nor does the client's webhook


class Receivers(Upstream):
    """One receiver on loopback with a path per webhook; `expect(path, n)` gives an event set once `path`
    has accepted `n` deliveries (repeats of one `webhook-id` count once)."""

    def __init__(self) -> None:
        super().__init__()
        self.got: dict[str, dict[str, RecordedRequest]] = {}
        self._wanted: dict[str, tuple[int, threading.Event]] = {}
        self._lock = threading.Lock()
        for path in ("/ops", "/bot", "/quiet"):
            self.route(path, self._hook)

    def expect(self, path: str, count: int) -> threading.Event:
        self._wanted[path] = (count, threading.Event())
        return self._wanted[path][1]

    def _hook(self, request: RecordedRequest) -> Reply:
        with self._lock:
            got = self.got.setdefault(request.path, {})
            got.setdefault(request.headers.get("webhook-id", ""), request)
            wanted = self._wanted.get(request.path)
            if wanted is not None and len(got) >= wanted[0]:
                wanted[1].set()
        return Reply(204)

    def events(self, path: str, secret: str) -> list[Any]:
        """The deliveries `path` accepted, in arrival order, each verified with `secret`."""
        return [
            Webhook(secret).verify(request.body, request.headers)
            for request in self.got.get(path, {}).values()
        ]


def hook(receivers: Receivers, path: str, secret: str, events: str = "") -> str:
    listed = f", events: [{events}]" if events else ""
    return (
        f"{{url: '{receivers.url}{path}', secret: env:SB_TEST_HOOK_{secret}, "
        f"egress: {{allow: ['{receivers.address}']}}{listed}}}"
    )


def fanout_config(tmp_path: Path, upstream: Upstream, receivers: Receivers, store: str) -> Path:
    bot = hook(receivers, "/bot", "BOT", "approval.requested, approval.answered")
    quiet = hook(receivers, "/quiet", "QUIET", "call.completed")
    clients = (
        "clients:\n"
        f"  bot: {{key_sha256: {key_sha256(BOT_KEY)}, apis: [shop], bindings: {{shop: {BOUND}}}, webhook: {bot}}}\n"
        f"  quiet: {{key_sha256: {key_sha256(QUIET_KEY)}, apis: [shop], bindings: {{shop: {BOUND}}}, webhook: {quiet}}}\n"
    )
    path = write_config(
        tmp_path, upstream, tools="tools:\n  createOrder: {requires_approval: true}\n", clients=clients
    )
    path.write_text(
        path.read_text(encoding="utf-8")
        + f"admins:\n  ops: {{key_sha256: {key_sha256(ADMIN_KEY)}}}\n"
        + f"approvals: {{wait: 0, webhook: {hook(receivers, '/ops', 'OPS')}}}\nstore: '{store}'\n",
        encoding="utf-8",
    )
    return path


async def arrived(event: threading.Event) -> None:
    with anyio.fail_after(60):  # the sender looks at the outbox every second
        while not await anyio.to_thread.run_sync(event.wait, 1.0):
            pass


async def test_a_subscribed_client_gets_its_own_approval_events_and_an_unsubscribed_one_none(
    tmp_path: Path, upstream: Upstream, store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    upstream.route("/shops/s1/orders", json_response({"id": "o1"}, status=201))
    for name, secret in SECRETS.items():
        monkeypatch.setenv(f"SB_TEST_HOOK_{name}", secret)
    with Receivers() as receivers:
        ops_done, bot_done = receivers.expect("/ops", 4), receivers.expect("/bot", 2)
        config = fanout_config(tmp_path, upstream, receivers, store_url)
        async with running_gateway(config) as (base, _):
            ids = {}
            for client, key in (("bot", BOT_KEY), ("quiet", QUIET_KEY)):
                async with http_client(f"{base}/mcp", key=key) as session:
                    ids[client] = approval_id(
                        await session.call_tool("createOrder", {k: ORDER[k] for k in ("product", "quantity")})
                    )
            approved = await admin(base, "POST", f"/admin/approvals/{ids['bot']}/approve")
            rejected = await admin(
                base, "POST", f"/admin/approvals/{ids['quiet']}/reject", {"reason": "not now"}
            )
            assert (approved.status_code, rejected.status_code) == (200, 200)
            await arrived(ops_done)
            await arrived(bot_done)
        async with open_store(store_url) as store:  # nothing left for anyone: no row for `quiet` was made
            assert await store.lease_due(4_000_000_000.0, lease=1) == []

    bot = receivers.events("/bot", SECRETS["BOT"])
    assert [(event["type"], event["data"]["status"]) for event in bot] == [
        ("approval.requested", "pending"),
        ("approval.answered", "approved"),
    ]
    assert all(event["data"]["id"] == ids["bot"] and event["data"]["client"] == "bot" for event in bot)
    assert bot[0]["data"]["arguments"] == {"product": "p1", "quantity": 2}
    assert not {"bound", "answered_by", "result"} & (set(bot[0]["data"]) | set(bot[1]["data"]))
    assert "s1" not in str(bot)  # the bound shop id is not the client's to see

    ops = receivers.events("/ops", SECRETS["OPS"])
    assert sorted((event["type"], event["data"]["client"]) for event in ops) == [
        ("approval.answered", "bot"),
        ("approval.answered", "quiet"),
        ("approval.requested", "bot"),
        ("approval.requested", "quiet"),
    ]
    answers = {
        event["data"]["client"]: event["data"] for event in ops if event["type"] == "approval.answered"
    }
    assert (answers["bot"]["answered_by"], answers["quiet"]["reason"]) == ("ops", "not now")
    assert all(event["data"]["bound"] == BOUND for event in ops)
    assert receivers.got.get("/quiet") is None


async def test_a_webhook_added_by_a_reload_gets_its_events_without_a_restart(
    tmp_path: Path, upstream: Upstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Routing, not storage: one backend is enough here (the fan-out above runs on all three).
    monkeypatch.setenv("SB_TEST_HOOK_OPS", SECRETS["OPS"])
    store = f"sqlite:///{tmp_path / 'state.db'}"
    with Receivers() as receivers:
        ops_done = receivers.expect("/ops", 1)
        config = fanout_config(tmp_path, upstream, receivers, store)
        with_hook = config.read_text(encoding="utf-8")
        without = with_hook.replace(f"approvals: {{wait: 0, webhook: {hook(receivers, '/ops', 'OPS')}}}", "")
        without = without.replace(
            ", webhook: " + hook(receivers, "/bot", "BOT", "approval.requested, approval.answered"), ""
        )
        without = without.replace(", webhook: " + hook(receivers, "/quiet", "QUIET", "call.completed"), "")
        assert "webhook:" not in without
        config.write_text(without + "approvals: {wait: 0}\n", encoding="utf-8")
        async with running_gateway(config) as (base, gateway):
            config.write_text(with_hook, encoding="utf-8")
            await gateway.reload_changed()
            assert gateway.config.approvals.webhook is not None
            async with http_client(f"{base}/mcp", key=BOT_KEY) as session:
                pending = approval_id(
                    await session.call_tool("createOrder", {k: ORDER[k] for k in ("product", "quantity")})
                )
            await arrived(ops_done)
    (event,) = receivers.events("/ops", SECRETS["OPS"])
    assert (event["type"], event["data"]["id"]) == ("approval.requested", pending)
