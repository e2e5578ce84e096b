"""Semantic ranking (the `semantic` extra): the bundled model, fusion with BM25, and the vector cache."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

from specbridge.search import (
    SearchIndex,
    SearchSettings,
    SemanticUnavailable,
    load_encoder,
)
from tests.search._model import real_model_dir
from tests.search._shop import names, shop, shop_index

HAS_NUMPY = importlib.util.find_spec("numpy") is not None
needs_model = pytest.mark.skipif(
    real_model_dir() is None or not HAS_NUMPY,
    reason="the model is not on this machine (SPECBRIDGE_TEST_MODEL, or the Hugging Face cache)",
)
needs_numpy = pytest.mark.skipif(not HAS_NUMPY, reason="numpy comes with the semantic extra")


class Counting:
    """Wraps an encoder and counts the texts it was asked to encode."""

    def __init__(self, inner: Any, model_id: str = "counting") -> None:
        self.inner = inner
        self.model_id = model_id
        self.encoded = 0

    def encode(self, texts: list[str]) -> Any:
        self.encoded += len(texts)
        return self.inner.encode(texts)


def distinct_sentences(index: SearchIndex) -> int:
    return len({sentence for text in index.texts for sentence in text.sentences})


class Letters:
    """A deterministic encoder for cache tests without the model: letter counts, as unit vectors."""

    def encode(self, texts: list[str]) -> Any:
        import numpy as np

        vectors = np.zeros((len(texts), 26), dtype=np.float32)
        for row, text in enumerate(texts):
            for letter in text.lower():
                if "a" <= letter <= "z":
                    vectors[row, ord(letter) - 97] += 1
        return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9)


def test_semantic_on_without_a_usable_model_is_an_error_with_its_code(tmp_path: Path) -> None:
    with pytest.raises(SemanticUnavailable) as raised:
        load_encoder(SearchSettings(semantic="on", model_dir=tmp_path))
    assert raised.value.code == "search-model-unavailable"
    assert raised.value.message.startswith("semantic search needs its model, which cannot be loaded")


def test_semantic_auto_without_a_usable_model_falls_back_to_bm25_alone(tmp_path: Path) -> None:
    settings = SearchSettings(semantic="auto", model_dir=tmp_path, cache_dir="")
    assert load_encoder(settings) is None
    index = shop_index(settings)
    assert index.semantic is False
    assert names(index, "refund a charge")[0] == "refundCharge"


def test_semantic_off_never_loads_a_model() -> None:
    assert load_encoder(SearchSettings(semantic="off")) is None


@needs_numpy
def test_tool_vectors_are_computed_once_and_read_back_from_the_cache(tmp_path: Path) -> None:
    encoder = Counting(Letters())
    settings = SearchSettings(cache_dir=tmp_path)
    toolset = shop()
    first = SearchIndex.build(toolset.tools, toolset.document.data, settings=settings, encoder=encoder)
    computed = encoder.encoded
    again = SearchIndex.build(toolset.tools, toolset.document.data, settings=settings, encoder=encoder)
    assert computed == distinct_sentences(first)  # four views of each tool, each distinct one once
    assert encoder.encoded == computed  # the restart encoded nothing
    assert len(list(tmp_path.glob("*.npy"))) == 1
    assert (first.vectors == again.vectors).all()


@needs_numpy
def test_other_tools_or_another_model_do_not_reuse_the_cached_vectors(tmp_path: Path) -> None:
    settings = SearchSettings(cache_dir=tmp_path)
    toolset = shop()
    every = SearchIndex.build(
        toolset.tools, toolset.document.data, settings=settings, encoder=Counting(Letters())
    )
    fewer = Counting(Letters())
    two = SearchIndex.build(toolset.tools[:2], toolset.document.data, settings=settings, encoder=fewer)
    other_model = Counting(Letters(), model_id="another")
    SearchIndex.build(toolset.tools, toolset.document.data, settings=settings, encoder=other_model)
    assert fewer.encoded == distinct_sentences(two) and other_model.encoded == distinct_sentences(every)
    assert len(list(tmp_path.glob("*.npy"))) == 3


@needs_numpy
def test_an_unwritable_cache_only_costs_the_work_again(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    encoder = Counting(Letters())
    toolset = shop()
    settings = SearchSettings(cache_dir=blocked / "cache")
    index = SearchIndex.build(toolset.tools, toolset.document.data, settings=settings, encoder=encoder)
    assert index.semantic and encoder.encoded == distinct_sentences(index)


@needs_numpy
def test_a_sentence_said_in_several_views_is_encoded_once_and_kept_in_each(tmp_path: Path) -> None:
    encoder = Counting(Letters())
    toolset = shop()
    index = SearchIndex.build(
        toolset.tools, toolset.document.data, settings=SearchSettings(cache_dir=""), encoder=encoder
    )
    said = [sentence for text in index.texts for sentence in text.sentences]
    assert encoder.encoded == len(set(said)) < len(said)
    assert index.vectors.shape[:2] == (4, len(toolset.tools))
    for view in range(4):
        for row, text in enumerate(index.texts):
            assert (index.vectors[view, row] == Letters().encode([text.sentences[view]])[0]).all()


@needs_model
def test_the_model_finds_a_tool_that_shares_no_word_with_the_task(tmp_path: Path) -> None:
    index = shop_index(SearchSettings(semantic="on", model_dir=real_model_dir(), cache_dir=tmp_path))
    assert index.semantic
    answer = index.search("will it rain", limit=1)
    assert [tool.name for tool in answer.tools] == ["getForecast"]
    assert answer.weak is True  # no word matched: the model's guess is flagged as such


@needs_model
def test_with_the_model_the_words_of_a_tool_still_find_it_first(tmp_path: Path) -> None:
    index = shop_index(SearchSettings(semantic="on", model_dir=real_model_dir(), cache_dir=tmp_path))
    assert names(index, "refund a charge")[0] == "refundCharge"
    assert names(index, "delete a customer")[0] == "deleteCustomer"


@needs_model
def test_the_tag_filter_holds_for_the_semantic_ranking_too(tmp_path: Path) -> None:
    index = shop_index(SearchSettings(semantic="on", model_dir=real_model_dir(), cache_dir=tmp_path))
    answer = index.search("will it rain", tag="Billing")
    assert {tool.name for tool in answer.tools} <= {"listInvoices", "refundCharge"}


@needs_model
def test_every_index_of_the_process_shares_one_loaded_model(tmp_path: Path) -> None:
    settings = SearchSettings(semantic="on", model_dir=real_model_dir(), cache_dir=tmp_path)
    first, second = load_encoder(settings), load_encoder(settings)
    assert first is not None and second is not None
    assert first.model is second.model  # type: ignore[attr-defined]
