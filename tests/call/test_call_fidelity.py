"""Request fidelity: requests built from generated arguments are accepted by openapi-core against the
original corpus documents (bounded: small documents, a few operations each)."""

from __future__ import annotations

import warnings

import pytest

from tests.support.fidelity import documents, run

pytest.importorskip("openapi_core", reason="openapi-core is a dev extra (pip install -e .[dev])")


@pytest.mark.skipif(not documents(300_000), reason="the corpus (../shared/corpus) is absent")
def test_requests_built_for_corpus_operations_are_accepted_by_openapi_core() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # openapi-core's own deprecation warnings are not ours
        stats = run(max_bytes=300_000, per_document=4)
    assert stats.operations >= 50
    not_pattern = sum(count for kind, count in stats.failures.items() if "pattern" not in kind)
    assert (stats.accepted / (stats.operations - (sum(stats.failures.values()) - not_pattern))) >= 0.95, (
        stats.failures,
        stats.examples,
    )
