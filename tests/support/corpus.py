"""The real-world corpus at ../shared/corpus: its manifest (file -> row; empty where the folder is
absent, and the test module says so with a skip) and each document converted once a run."""

from __future__ import annotations

import csv
from functools import cache
from pathlib import Path

from specbridge.document import load_document
from specbridge.tools import ToolSet, convert

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"
ABSENT = "corpus folder ../shared/corpus is absent"


def _manifest() -> dict[str, dict[str, str]]:
    if not (CORPUS / "MANIFEST.tsv").is_file():
        return {}
    with (CORPUS / "MANIFEST.tsv").open(encoding="utf-8", newline="") as handle:
        return {row["file"]: row for row in csv.DictReader(handle, delimiter="\t")}


MANIFEST = _manifest()


@cache
def converted(name: str) -> ToolSet:
    return convert(load_document(CORPUS / name))
