"""A small shop API for code-mode tests: customers, their orders, one order, a refund that needs a
person's approval; its upstream routes, and the config that serves it in code mode."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.support.upstream import RecordedRequest, Reply, Upstream, json_response

SPEC = """\
openapi: 3.1.0
info: {title: Code shop, version: '1'}
paths:
  /customers:
    get:
      operationId: findCustomers
      summary: Find customers by email
      parameters:
        - {name: email, in: query, required: true, schema: {type: string}}
      responses:
        '200':
          description: The customers with that email
          content:
            application/json:
              schema:
                type: array
                items: {type: object, properties: {id: {type: string}, email: {type: string}}}
  /customers/{customerId}/orders:
    get:
      operationId: listOrders
      summary: A customer's orders
      parameters:
        - {name: customerId, in: path, required: true, schema: {type: string}}
      responses:
        '200':
          description: The orders
          content:
            application/json:
              schema:
                type: object
                properties:
                  items:
                    type: array
                    items: {type: object, properties: {id: {type: string}, total: {type: integer}}}
  /orders/{orderId}:
    get:
      operationId: getOrder
      summary: One order with its lines
      parameters:
        - {name: orderId, in: path, required: true, schema: {type: string}}
      responses:
        '200':
          description: The order
          content: {application/json: {schema: {type: object}}}
  /orders/{orderId}/refund:
    post:
      operationId: refundOrder
      summary: Refund an order
      parameters:
        - {name: orderId, in: path, required: true, schema: {type: string}}
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [reason]
              properties: {reason: {type: string}}
      responses:
        '200':
          description: The refund
          content: {application/json: {schema: {type: object}}}
"""

ORDERS = [{"id": f"o{i}", "total": i * 10, "status": "paid"} for i in range(1, 41)]


def shop_routes(upstream: Upstream) -> None:
    """What the shop's upstream answers."""
    upstream.route("/customers", json_response([{"id": "c7", "email": "ada@example.com"}]))
    upstream.route("/customers/c7/orders", json_response({"items": ORDERS}))
    for order in ORDERS:
        upstream.route(
            f"/orders/{order['id']}", json_response({**order, "lines": [{"sku": "mug", "qty": 2}]})
        )

    def refund(request: RecordedRequest) -> Reply:
        return json_response({"refunded": request.path.split("/")[2], "status": "refunded"})

    upstream.route("/orders/o40/refund", refund)
    upstream.route("/orders/o39/refund", refund)


def code_config(
    directory: Path,
    upstream: Upstream,
    *,
    api: str = "",
    top: str = "",
    store: str | None = None,
) -> Path:
    """The shop in code mode (`refundOrder` needs a person's approval); `api`: more keys of the API;
    `top`: more top-level keys; `store`: the store URL (else SQLite beside the config)."""
    (directory / "shop.yaml").write_text(SPEC, encoding="utf-8")
    store_line = f"store: {store}\n" if store is not None else ""
    config = f"""\
apis:
  shop:
    spec: ./shop.yaml
    base_url: {upstream.url}
    egress: {{allow: ["{upstream.address}"]}}
    code_mode: on
    tools:
      refundOrder: {{requires_approval: true}}
{textwrap.indent(api, "    ")}{store_line}{top}"""
    path = directory / "specbridge.yaml"
    path.write_text(config, encoding="utf-8")
    return path
