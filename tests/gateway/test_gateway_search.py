"""Search mode's index: BM25 over tool names, titles, paths, descriptions and argument names."""

from __future__ import annotations

from specbridge.document import parse_document
from specbridge.gateway._search import ToolIndex, words
from specbridge.tools import convert

SHOP = """
openapi: 3.1.0
info: {title: shop, version: '1'}
paths:
  /customers:
    get: {operationId: listCustomers, summary: List customers, responses: {'200': {description: ok}}}
    post:
      operationId: createCustomer
      summary: Create a customer
      requestBody:
        content:
          application/json:
            schema: {type: object, properties: {email: {type: string}, name: {type: string}}}
      responses: {'201': {description: created}}
  /customers/{id}:
    parameters: [{name: id, in: path, required: true, schema: {type: string}}]
    delete: {operationId: deleteCustomer, summary: Delete a customer, responses: {'204': {description: gone}}}
  /invoices:
    get: {operationId: listInvoices, description: Every invoice we ever sent., responses: {'200': {description: ok}}}
  /refunds:
    post: {operationId: refundCharge, summary: Refund a charge, responses: {'200': {description: ok}}}
"""


def index() -> ToolIndex:
    return ToolIndex.build(convert(parse_document(SHOP)).tools)


def names(found: list[object]) -> list[str]:
    return [tool.name for tool in found]  # type: ignore[attr-defined]


def test_words_split_names_and_drop_plurals_and_filler() -> None:
    assert words("listPullRequests") == ["list", "pull", "request"]
    assert words("the /v1/customers/{customer_id}") == ["v", "1", "customer", "customer", "id"]


def test_the_tool_whose_name_says_it_comes_first() -> None:
    assert names(index().search("refund a charge"))[0] == "refundCharge"


def test_what_people_say_for_a_method_finds_the_operation() -> None:
    assert names(index().search("remove customer"))[0] == "deleteCustomer"
    assert names(index().search("new customer"))[0] == "createCustomer"


def test_argument_names_and_descriptions_are_searched() -> None:
    assert names(index().search("email"))[0] == "createCustomer"
    assert names(index().search("sent"))[0] == "listInvoices"


def test_the_limit_caps_the_results_and_nothing_matching_returns_nothing() -> None:
    assert len(index().search("customer", limit=2)) == 2
    assert index().search("kubernetes pod") == []


def test_equal_scores_are_ordered_by_name() -> None:
    twins = """
openapi: 3.1.0
info: {title: twins, version: '1'}
paths:
  /b: {get: {operationId: zebra, description: Find a widget., responses: {'200': {description: ok}}}}
  /a: {get: {operationId: aardvark, description: Find a widget., responses: {'200': {description: ok}}}}
"""
    tools = convert(parse_document(twins)).tools
    assert names(ToolIndex.build(tools).search("widget")) == ["aardvark", "zebra"]
