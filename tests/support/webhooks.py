"""A client's webhook receiver on loopback: the client `bot` (its key `key`) whose `call.completed`
events go there, signed with a secret the environment holds (`SB_TEST_CLIENT_HOOK`).

    with webhook_receiver(monkeypatch) as hooks:
        config.write_text(config.read_text() + hooks.clients)      # the `clients:` block
        ... hooks.delivered.wait(20) ...                          # set at the first delivery
    (delivery,) = hooks.upstream.requests
    payload = Webhook(hooks.secret).verify(delivery.body, delivery.headers)
"""

from __future__ import annotations

import base64
import contextlib
import secrets
import threading
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from specbridge.access import key_sha256, new_key
from tests.support.upstream import RecordedRequest, Reply, Upstream, text_response


@dataclass
class Receiver:
    upstream: Upstream
    secret: str
    key: str
    delivered: threading.Event
    clients: str


@contextlib.contextmanager
def webhook_receiver(monkeypatch: pytest.MonkeyPatch) -> Iterator[Receiver]:
    secret = "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()
    monkeypatch.setenv("SB_TEST_CLIENT_HOOK", secret)
    key = new_key()
    delivered = threading.Event()

    def received(request: RecordedRequest) -> Reply:
        delivered.set()
        return text_response("ok")

    with Upstream() as receiver:
        receiver.route("/hook", received)
        hook = (
            f"{{url: '{receiver.url}/hook', secret: 'env:SB_TEST_CLIENT_HOOK', "
            f"egress: {{allow: ['{receiver.address}']}}, events: [call.completed]}}"
        )
        clients = f"clients:\n  bot: {{key_sha256: {key_sha256(key)}, apis: [shop], webhook: {hook}}}\n"
        yield Receiver(receiver, secret, key, delivered, clients)
