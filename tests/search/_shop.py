"""A small API for the search tests: plain names, thin descriptions, tags."""

from __future__ import annotations

from specbridge.document import parse_document
from specbridge.search import SearchIndex, SearchSettings
from specbridge.tools import ToolSet, convert

SHOP = """
openapi: 3.1.0
info: {title: Corner Shop, version: '1'}
tags:
  - {name: Customers, description: People who buy from the shop.}
  - {name: Billing, description: Invoices and refunds.}
paths:
  /customers:
    get: {operationId: listCustomers, tags: [Customers], summary: List customers, responses: {'200': {description: ok}}}
    post:
      operationId: createCustomer
      tags: [Customers]
      summary: Create a customer
      requestBody:
        content:
          application/json:
            schema:
              type: object
              properties:
                email: {type: string, description: Where the newsletter goes.}
                name: {type: string}
      responses: {'201': {description: created}}
  /customers/{id}:
    parameters: [{name: id, in: path, required: true, schema: {type: string}}]
    delete: {operationId: deleteCustomer, tags: [Customers], summary: Delete a customer, responses: {'204': {description: gone}}}
  /invoices:
    get:
      operationId: listInvoices
      tags: [Billing]
      description: Every invoice we ever sent.
      responses:
        '200':
          description: ok
          content: {application/json: {schema: {$ref: '#/components/schemas/InvoicePage'}}}
  /refunds:
    post: {operationId: refundCharge, tags: [Billing], summary: Refund a charge, responses: {'200': {description: ok}}}
  /weather:
    get: {operationId: getForecast, summary: Tomorrow's forecast, responses: {'200': {description: ok}}}
components:
  schemas:
    InvoicePage: {type: object, properties: {data: {type: array, items: {type: object}}}}
"""

LEXICAL = SearchSettings(semantic="off")


def shop() -> ToolSet:
    return convert(parse_document(SHOP))


def shop_index(settings: SearchSettings = LEXICAL) -> SearchIndex:
    toolset = shop()
    return SearchIndex.build(toolset.tools, toolset.document.data, settings=settings)


def names(index: SearchIndex, query: str, limit: int = 5, tag: str | None = None) -> list[str]:
    return [tool.name for tool in index.search(query, limit, tag).tools]
