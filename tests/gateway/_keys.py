"""Idempotency keys through the gateway: an API whose calls take a key (`KEY_SPEC`), its config on a store, the orders the upstream received."""

from __future__ import annotations

from pathlib import Path

from tests.support.documents import IDEMPOTENCY_KEY
from tests.support.gateway import IN_PROCESS, SPEC, write_config
from tests.support.openapi import operation
from tests.support.upstream import RecordedRequest, Upstream

ORDER = {"shopId": "s1", "product": "p1", "quantity": 2}


MCP = f"{IN_PROCESS}/mcp"  # the in-process gateway's endpoint (the socket is not the point here)


KEY_SPEC = (
    SPEC
    + operation(
        "/payments", "post", "createPayment", "Take a payment", parameters=[IDEMPOTENCY_KEY],
        body="{type: object, required: [amount], properties: {amount: {type: integer}}}", answer="The payment",
    )
    + operation(
        "/checkouts", "post", "createCheckout", "Start a checkout", answer="The checkout",
        body="{type: object, required: [idempotency_key, amount], "
        "properties: {idempotency_key: {type: string}, amount: {type: integer}}}",
    )
    + operation(
        "/refunds", "post", "createRefund", "Refund a payment (a body the tool takes whole)", answer="The refund",
        body="{type: object, required: [idempotency_key], properties: {idempotency_key: {type: string}, "
        "amount: {type: integer}}, oneOf: [{required: [amount]}, {required: [all]}]}",
    )
)  # fmt: skip


def config_with(tmp_path: Path, upstream: Upstream, store: str, top: str = "", clients: str = "") -> Path:
    path = write_config(tmp_path, upstream, spec=KEY_SPEC, clients=clients)
    path.write_text(path.read_text(encoding="utf-8") + f"store: '{store}'\n{top}", encoding="utf-8")
    return path


def orders(upstream: Upstream) -> list[RecordedRequest]:
    return [request for request in upstream.requests if request.path == "/shops/s1/orders"]
