"""What an operation's method and path say about it, short spellings, admin variants, and the fusion."""

from __future__ import annotations

import importlib.util

import pytest

from specbridge.document import parse_document
from specbridge.search import SearchIndex, terms
from specbridge.search._document import action, structure
from specbridge.search._semantic import fuse
from specbridge.tools import convert
from tests.search._shop import LEXICAL, names, shop_index

needs_numpy = pytest.mark.skipif(
    importlib.util.find_spec("numpy") is None, reason="numpy comes with the semantic extra"
)


@pytest.mark.parametrize(
    ("method", "path", "expected"),
    [
        ("GET", "/customers", "list"),
        ("GET", "/customers/{id}", "get"),
        ("GET", "/Accounts/{AccountSid}/Calls/{Sid}.json", "get"),
        ("POST", "/customers", "create"),
        ("POST", "/v1/customers/{customer}", "update"),
        ("POST", "/v1/payouts/{payout}/cancel", "act"),
        ("POST", "/conversations.leave", "act"),
        ("GET", "/conversations.list", "act"),
        ("PATCH", "/customers/{id}", "update"),
        ("PUT", "/customers/{id}", "replace"),
        ("DELETE", "/customers/{id}", "delete"),
        ("HEAD", "/customers/{id}", "check"),
    ],
)
def test_the_action_is_read_from_the_method_and_the_shape_of_the_path(
    method: str, path: str, expected: str
) -> None:
    assert action(method, path) == expected


def test_the_model_reads_an_operation_as_its_action_and_resources() -> None:
    assert structure("GET", "/repos/{owner}/{repo}/stargazers") == "list all stargazers of repos"
    assert structure("POST", "/v1/payouts/{payout}/cancel") == "cancel payouts"
    assert structure("GET", "/2010-04-01/Accounts/{AccountSid}/Calls/{CallSid}/Recordings.json") == (
        "list all recordings of calls"
    )
    assert structure("POST", "/conversations.leave") == "conversations leave"


def test_a_word_and_its_short_spelling_are_one_search_term() -> None:
    assert terms("repo") == terms("repository") == terms("repos")
    assert terms("org") == terms("organisation") == terms("organization")
    assert terms("config") == terms("configuration")


def test_asking_who_or_which_finds_the_listing_before_the_single_item() -> None:
    assert names(shop_index(), "which customers")[0] == "listCustomers"
    assert names(shop_index(), "who are our customers")[0] == "listCustomers"


ADMIN = """
openapi: 3.1.0
info: {title: Chat, version: '1'}
paths:
  /admin/channels/{id}/archive:
    post: {operationId: adminArchiveChannel, summary: Archive a channel of any workspace, responses: {'200': {description: ok}}}
  /channels/{id}/archive:
    post: {operationId: archiveChannel, summary: Archive a channel, responses: {'200': {description: ok}}}
"""


def test_the_users_operation_comes_before_its_admin_variant_unless_the_query_says_admin() -> None:
    toolset = convert(parse_document(ADMIN))
    index = SearchIndex.build(toolset.tools, toolset.document.data, settings=LEXICAL)
    assert names(index, "archive a channel")[0] == "archiveChannel"
    assert names(index, "as an admin archive a channel")[0] == "adminArchiveChannel"


@needs_numpy
def test_a_tool_far_ahead_on_words_stays_ahead_of_one_a_little_closer_in_meaning() -> None:
    import numpy as np

    # one view, three tools: tool 1 is the closest in meaning, tool 0 a little less close
    vectors = np.array([[[0.9, 0.436], [1.0, 0.0], [0.0, 1.0]]], dtype=np.float32)
    query = np.array([1.0, 0.0], dtype=np.float32)
    assert fuse(vectors, query, {0: 10.0, 1: 1.0}, None, 0.35, 3)[0] == 0
    assert fuse(vectors, query, {}, None, 0.35, 3) == [1, 0, 2]  # no word matched: meaning alone
    assert fuse(vectors, query, {0: 10.0}, [1, 2], 0.35, 3) == [1, 2]  # only the candidates


@needs_numpy
def test_an_admin_variant_is_lowered_in_the_fused_ranking_too() -> None:
    import numpy as np

    vectors = np.array([[[1.0, 0.0], [0.95, 0.312], [0.0, 1.0]]], dtype=np.float32)
    query = np.array([1.0, 0.0], dtype=np.float32)
    assert fuse(vectors, query, {}, None, 0.35, 3) == [0, 1, 2]
    assert fuse(vectors, query, {}, None, 0.35, 3, lowered={0: 0.5}) == [1, 0, 2]
