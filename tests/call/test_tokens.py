"""The token estimate: fast, no tokenizer, within ±15 % of a real one on the corpus's answers."""

from __future__ import annotations

import base64
import random

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from specbridge.call._tokens import SAMPLE, _weighted, estimate_tokens


def test_nothing_is_no_tokens_and_text_is_some() -> None:
    assert estimate_tokens(b"") == 0
    assert estimate_tokens("hello") >= 1
    assert estimate_tokens("hello world") == estimate_tokens(b"hello world")


def test_dense_text_costs_more_tokens_per_byte_than_words() -> None:
    words = b"the order was shipped to the customer at the address given " * 40
    noise = base64.b64encode(random.Random(1).randbytes(len(words)))[: len(words)]
    assert estimate_tokens(noise) > 2 * estimate_tokens(words)


def test_a_large_text_is_estimated_from_slices_close_to_the_whole_count() -> None:
    items = [
        {"id": f"cus_{i:08d}", "name": f"Customer {i}", "email": f"c{i}@example.com"} for i in range(20000)
    ]
    data = orjson.dumps(items)
    assert len(data) > 10 * SAMPLE
    whole = _weighted(data)
    assert abs(estimate_tokens(data) - whole) / whole < 0.05


@given(st.text(max_size=2000))
def test_the_estimate_adds_up_and_is_positive_for_any_text(text: str) -> None:
    one = estimate_tokens(text)
    assert (one > 0) == bool(text)
    assert abs(estimate_tokens(text + text) - 2 * one) <= 3  # only the pair across the seam differs


def test_the_estimate_is_within_15_percent_of_o200k_on_the_corpus_answers() -> None:
    bpe = pytest.importorskip(
        "bpe_openai", reason="the reference tokenizer bpe-openai (a dev dependency) is not installed"
    )
    from tests.support.answers import corpus_folder, list_answers

    if corpus_folder() is None:
        pytest.skip("../shared/corpus is absent")
    encoding = bpe.get_encoding("o200k_base")
    errors = []
    for answer in list_answers(sizes=(10,), per_document=2):
        text = orjson.dumps(answer.value).decode()
        real = len(encoding.encode_ordinary(text))
        errors.append((abs(estimate_tokens(text) - real) / real, answer.document, answer.tool.name))
    assert len(errors) > 40
    assert max(errors)[0] <= 0.15, max(errors)
