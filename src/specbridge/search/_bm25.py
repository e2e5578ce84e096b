"""BM25 over weighted term counts, with an inverted index so a search touches only matching tools.

Hand-written: a thousand short documents need no sparse-matrix library, and the postings make a search
cost what the query's words match, not what the API holds.
"""

from __future__ import annotations

import math
from array import array
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

K1 = 1.2
B = 0.75


@dataclass(frozen=True, slots=True)
class Bm25:
    # stem -> (documents, their saturated weights): two arrays, 12 bytes a posting where a tuple of a
    # pair was 80 (Stripe's index held 3.5 MiB of them)
    postings: Mapping[str, tuple[array[int], array[float]]]
    idf: Mapping[str, float]
    size: int

    @classmethod
    def build(cls, documents: Sequence[Mapping[str, list[str]]], weights: Mapping[str, float]) -> Bm25:
        """`documents`: each one's stems by field. A stem's weight in a document is the sum over fields
        of the field's weight times its saturated, length-normalised count in that field."""
        averages = {
            field: sum(len(document.get(field, ())) for document in documents) / max(len(documents), 1)
            for field in weights
        }
        postings: dict[str, list[tuple[int, float]]] = {}
        for number, document in enumerate(documents):
            weighted: dict[str, float] = {}
            for field, stems in document.items():
                if not stems:
                    continue
                average = averages[field] or 1.0
                norm = K1 * (1 - B + B * len(stems) / average)
                for stem, count in Counter(stems).items():
                    saturated = count * (K1 + 1) / (count + norm)
                    weighted[stem] = weighted.get(stem, 0.0) + weights[field] * saturated
            for stem, value in weighted.items():
                postings.setdefault(stem, []).append((number, value))
        total = len(documents)
        idf = {
            stem: math.log(1 + (total - len(found) + 0.5) / (len(found) + 0.5))
            for stem, found in postings.items()
        }
        packed = {
            stem: (array("I", [number for number, _ in found]), array("d", [value for _, value in found]))
            for stem, found in postings.items()
        }
        return cls(packed, idf, total)

    def scores(self, query: Mapping[str, float]) -> dict[int, float]:
        """Each matching document's score for weighted query stems; documents matching nothing are absent."""
        scores: dict[int, float] = {}
        for stem, weight in query.items():
            found = self.postings.get(stem)
            if not found:
                continue
            factor = weight * self.idf[stem]
            for number, saturated in zip(*found, strict=True):
                scores[number] = scores.get(number, 0.0) + factor * saturated
        return scores
