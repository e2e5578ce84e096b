"""The search index with BM25 alone: rich tool documents, tags, and never an empty answer."""

from __future__ import annotations

from specbridge.document import parse_document
from specbridge.search import SearchIndex
from specbridge.tools import convert
from tests.search._shop import LEXICAL, names, shop_index


def test_the_tool_whose_name_says_it_comes_first() -> None:
    assert names(shop_index(), "refund a charge")[0] == "refundCharge"


def test_what_people_say_for_a_method_finds_the_operation() -> None:
    assert names(shop_index(), "remove customer")[0] == "deleteCustomer"
    assert names(shop_index(), "new customer")[0] == "createCustomer"


def test_a_synonym_finds_a_tool_that_never_uses_the_persons_word() -> None:
    assert names(shop_index(), "give someone their money back")[0] == "refundCharge"
    assert names(shop_index(), "kick a customer out")[0] == "deleteCustomer"


def test_argument_names_descriptions_tags_and_answer_schemas_are_searched() -> None:
    index = shop_index()
    assert names(index, "email")[0] == "createCustomer"
    assert names(index, "newsletter")[0] == "createCustomer"  # a body property's description
    assert names(index, "sent")[0] == "listInvoices"
    assert set(names(index, "billing")[:2]) == {"listInvoices", "refundCharge"}  # the tag
    assert names(index, "page")[0] == "listInvoices"  # the answer's schema name


def test_a_long_description_does_not_outrank_a_tool_named_for_the_task() -> None:
    wordy = "widget " * 60
    document = f"""
openapi: 3.1.0
info: {{title: t, version: '1'}}
paths:
  /a: {{get: {{operationId: aboutEverything, description: "{wordy}", responses: {{'200': {{description: ok}}}}}}}}
  /widgets: {{get: {{operationId: listWidgets, responses: {{'200': {{description: ok}}}}}}}}
"""
    toolset = convert(parse_document(document))
    index = SearchIndex.build(toolset.tools, toolset.document.data, settings=LEXICAL)
    assert names(index, "widgets")[0] == "listWidgets"


def test_nothing_matching_still_answers_with_the_nearest_and_says_the_match_is_weak() -> None:
    answer = shop_index().search("kubernetes pod", limit=3)
    assert len(answer.tools) == 3
    assert answer.weak is True
    assert shop_index().search("refund").weak is False


def test_a_misspelt_word_finds_the_tool_by_its_spelling() -> None:
    answer = shop_index().search("forcast")
    assert answer.weak is True
    assert answer.tools[0].name == "getForecast"


def test_the_tag_filter_narrows_the_search_to_one_tag_in_any_case() -> None:
    index = shop_index()
    answer = index.search("list", tag="billing")
    assert answer.tag == "Billing"
    assert {tool.name for tool in answer.tools} <= {"listInvoices", "refundCharge"}
    assert answer.tools[0].name == "listInvoices"


def test_a_tag_without_a_query_lists_that_tags_tools_in_document_order() -> None:
    answer = shop_index().search("", limit=10, tag="Customers")
    assert [tool.name for tool in answer.tools] == ["listCustomers", "createCustomer", "deleteCustomer"]
    assert answer.weak is False


def test_an_unknown_tag_is_reported_and_every_tool_is_searched() -> None:
    answer = shop_index().search("refund", tag="Nope")
    assert answer.unknown_tag == "Nope" and answer.tag is None
    assert answer.tools[0].name == "refundCharge"


def test_the_apis_tags_are_counted_in_the_documents_order() -> None:
    assert shop_index().tags == (("Customers", 3), ("Billing", 2))


def test_the_limit_caps_the_results() -> None:
    assert len(shop_index().search("customer", limit=2).tools) == 2


def test_equal_scores_are_ordered_by_name() -> None:
    twins = """
openapi: 3.1.0
info: {title: twins, version: '1'}
paths:
  /b: {get: {operationId: zebra, description: Find a widget., responses: {'200': {description: ok}}}}
  /a: {get: {operationId: aardvark, description: Find a widget., responses: {'200': {description: ok}}}}
"""
    toolset = convert(parse_document(twins))
    index = SearchIndex.build(toolset.tools, toolset.document.data, settings=LEXICAL)
    assert names(index, "widget") == ["aardvark", "zebra"]


def test_an_api_without_tools_answers_with_nothing_rather_than_failing() -> None:
    empty = convert(parse_document("openapi: 3.1.0\ninfo: {title: e, version: '1'}\npaths: {}\n"))
    index = SearchIndex.build(empty.tools, empty.document.data, settings=LEXICAL)
    assert index.search("anything").tools == ()


def test_a_search_narrowed_to_one_callers_tools_never_finds_the_others() -> None:
    index = shop_index()
    only = frozenset(i for i, tool in enumerate(index.tools) if tool.name != "refundCharge")
    assert "refundCharge" not in [tool.name for tool in index.search("refund a charge", 20, only=only).tools]
    assert "refundCharge" not in [tool.name for tool in index.search("", 20, tag="billing", only=only).tools]
    assert "refundCharge" not in [
        tool.name for tool in index.search("zzqx", 20, only=only).tools
    ]  # by spelling
    assert [tool.name for tool in index.search("refund", 5, only=frozenset()).tools] == []


def test_a_callers_tags_count_only_its_tools_and_leave_out_a_tag_with_none() -> None:
    index = shop_index()
    assert dict(index.tags) == {"Customers": 3, "Billing": 2}
    tagged = frozenset(i for i, text in enumerate(index.texts) if "Billing" in text.tags)
    every = frozenset(range(len(index.tools)))
    assert dict(index.tags_of(every - {min(tagged)})) == {"Customers": 3, "Billing": 1}
    assert dict(index.tags_of(every - tagged)) == {"Customers": 3}
    assert index.tags_of(None) == index.tags
    assert index.search("", 5, tag="billing", only=every - tagged).unknown_tag == "billing"
