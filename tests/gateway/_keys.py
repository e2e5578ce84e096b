"""Idempotency keys through the gateway: an API whose calls take a key (`KEY_SPEC`), its config on a store, the orders the upstream received."""

from __future__ import annotations

from pathlib import Path

from tests.support.gateway import IN_PROCESS, SPEC, write_config
from tests.support.upstream import RecordedRequest, Upstream

ORDER = {"shopId": "s1", "product": "p1", "quantity": 2}


MCP = f"{IN_PROCESS}/mcp"  # the in-process gateway's endpoint (the socket is not the point here)


KEY_SPEC = (
    SPEC
    + """\
  /payments:
    post:
      operationId: createPayment
      summary: Take a payment
      parameters:
        - {name: Idempotency-Key, in: header, required: false, schema: {type: string}}
      requestBody:
        required: true
        content:
          application/json:
            schema: {type: object, required: [amount], properties: {amount: {type: integer}}}
      responses: {'200': {description: The payment, content: {application/json: {schema: {type: object}}}}}
  /checkouts:
    post:
      operationId: createCheckout
      summary: Start a checkout
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [idempotency_key, amount]
              properties: {idempotency_key: {type: string}, amount: {type: integer}}
      responses: {'200': {description: The checkout, content: {application/json: {schema: {type: object}}}}}
  /refunds:
    post:
      operationId: createRefund
      summary: Refund a payment (a body the tool takes whole)
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [idempotency_key]
              properties: {idempotency_key: {type: string}, amount: {type: integer}}
              oneOf: [{required: [amount]}, {required: [all]}]
      responses: {'200': {description: The refund, content: {application/json: {schema: {type: object}}}}}
"""
)


def config_with(tmp_path: Path, upstream: Upstream, store: str, top: str = "", clients: str = "") -> Path:
    path = write_config(tmp_path, upstream, spec=KEY_SPEC, clients=clients)
    path.write_text(path.read_text(encoding="utf-8") + f"store: '{store}'\n{top}", encoding="utf-8")
    return path


def orders(upstream: Upstream) -> list[RecordedRequest]:
    return [request for request in upstream.requests if request.path == "/shops/s1/orders"]
