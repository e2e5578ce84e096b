"""Tasks as a person says them, through the real search: a floor on recall@5.

The floors sit a little under what bench/search.py measures (docs/benchmarks.md), so a change that
makes search worse fails here; the figures themselves live in the benchmark.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from specbridge.document import load_document
from specbridge.search import SearchIndex, SearchSettings
from specbridge.tools import convert
from tests.search._model import real_model_dir
from tests.search._shop import shop_index

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "corpus"
SLACK = ROOT / "bench" / "search" / "slack.yaml"
KUBERNETES = ROOT / "bench" / "search" / "kubernetes.yaml"

SHOP_TASKS = [
    ("sign up a new customer", "createCustomer"),
    ("get rid of a customer", "deleteCustomer"),
    ("see every customer", "listCustomers"),
    ("give back the money for a charge", "refundCharge"),
    ("show me the invoices", "listInvoices"),
    ("forecast for tomorrow", "getForecast"),
]


def recall_at_5(index: SearchIndex, tasks: list[dict[str, Any]]) -> float:
    hits = sum(
        any(tool.name in task["accept"] for tool in index.search(task["query"], limit=5).tools)
        for task in tasks
    )
    return hits / len(tasks)


def test_the_shops_tasks_find_their_tool_first() -> None:
    index = shop_index()
    assert [index.search(query, limit=1).tools[0].name for query, _ in SHOP_TASKS] == [
        tool for _, tool in SHOP_TASKS
    ]


@pytest.fixture(scope="module")
def slack() -> tuple[Any, list[dict[str, Any]]]:
    tasks = yaml.safe_load(SLACK.read_text(encoding="utf-8"))
    document = CORPUS / tasks["document"]
    if not document.is_file():
        pytest.skip(f"the corpus is not at {CORPUS}")
    return convert(load_document(str(document))), tasks["tasks"]


def test_slack_tasks_reach_the_recall_floor_with_bm25_alone(slack: tuple[Any, list[dict[str, Any]]]) -> None:
    toolset, tasks = slack
    index = SearchIndex.build(toolset.tools, toolset.document.data, settings=SearchSettings(semantic="off"))
    assert recall_at_5(index, tasks) >= 0.6


@pytest.mark.skipif(real_model_dir() is None, reason="the model is not on this machine")
def test_slack_tasks_reach_a_higher_floor_with_the_model(
    slack: tuple[Any, list[dict[str, Any]]], tmp_path: Path
) -> None:
    toolset, tasks = slack
    settings = SearchSettings(semantic="on", model_dir=real_model_dir(), cache_dir=tmp_path)
    index = SearchIndex.build(toolset.tools, toolset.document.data, settings=settings)
    assert recall_at_5(index, tasks) >= 0.78


def test_kubernetes_tasks_reach_the_recall_floor_with_bm25_alone() -> None:
    # a thousand tools in near-identical families (list, read, watch, status, patch, replace of each
    # kind): the action a task means has to choose among them
    tasks = yaml.safe_load(KUBERNETES.read_text(encoding="utf-8"))
    document = CORPUS / tasks["document"]
    if not document.is_file():
        pytest.skip(f"the corpus is not at {CORPUS}")
    toolset = convert(load_document(str(document)))
    index = SearchIndex.build(toolset.tools, toolset.document.data, settings=SearchSettings(semantic="off"))
    assert recall_at_5(index, tasks["tasks"]) >= 0.26
