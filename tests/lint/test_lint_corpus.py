"""Every document of the real-world corpus lints without an error, and every position is on its key."""

from __future__ import annotations

from pathlib import Path

import pytest

from specbridge.document import load_document
from specbridge.document.pointer import unescape_token
from specbridge.lint import lint
from specbridge.tools import convert

CORPUS = Path(__file__).resolve().parents[2] / ".." / "shared" / "corpus"
DOCUMENTS = (
    sorted(p for p in CORPUS.glob("*") if p.suffix in (".json", ".yaml", ".yml")) if CORPUS.is_dir() else []
)


@pytest.mark.skipif(not DOCUMENTS, reason=f"the corpus folder {CORPUS} is absent")
@pytest.mark.parametrize("path", DOCUMENTS, ids=[p.name for p in DOCUMENTS])
def test_a_corpus_document_lints_and_each_finding_points_at_its_key(path: Path) -> None:
    report = lint(convert(load_document(path)))
    lines = report.toolset.document.text.splitlines()
    for finding in report.findings:
        if not finding.pointer:
            continue
        assert finding.line is not None, finding
        token = unescape_token(finding.pointer.rsplit("/", 1)[-1])
        at = lines[finding.line - 1][(finding.column or 1) - 1 :]
        assert token.isdigit() or at.lstrip("\"'").startswith(token), (finding.pointer, at[:60])
