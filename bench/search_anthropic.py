"""Anthropic's `tool_search_tool_bm25` as a user of our `--defer-loading` export gets it, emulated here.

The real search runs on Anthropic's servers (no network from this machine, and its code is not
public). What its documentation says it does: Claude writes a natural-language query, and the catalogue
of deferred tools is searched with BM25 over each tool's name, description, argument names and
argument descriptions; 3 to 5 tools come back as `tool_reference` blocks. So this is a textbook Okapi
BM25 (k1 1.2, b 0.75) over exactly those texts of our Anthropic export, with the generous tokenising
such searches use (lower case, split at camelCase boundaries and at anything not a letter or digit),
no stemming and no synonyms. The measure is the same as ours: the query as a person said it.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Any

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_WORD = re.compile(r"[A-Za-z0-9]+")
K1, B = 1.2, 0.75


def tokens(text: str) -> list[str]:
    return [part.lower() for word in _WORD.findall(text) for part in _CAMEL.split(word) if part]


def searchable_text(tool: dict[str, Any]) -> str:
    """Name, description, argument names and argument descriptions of one Anthropic tool entry."""
    parts = [tool["name"], tool.get("description") or ""]
    for name, schema in ((tool.get("input_schema") or {}).get("properties") or {}).items():
        parts.append(name)
        if isinstance(schema, dict) and isinstance(schema.get("description"), str):
            parts.append(schema["description"])
    return " ".join(parts)


class AnthropicBm25:
    def __init__(self, tools: list[dict[str, Any]]) -> None:
        self.counts = [Counter(tokens(searchable_text(tool))) for tool in tools]
        self.lengths = [sum(counts.values()) for counts in self.counts]
        self.average = (sum(self.lengths) / len(self.lengths)) if self.lengths else 1.0
        frequency: Counter[str] = Counter(term for counts in self.counts for term in counts)
        total = len(self.counts)
        self.idf = {term: math.log(1 + (total - n + 0.5) / (n + 0.5)) for term, n in frequency.items()}
        self.postings: dict[str, list[int]] = {}
        for position, counts in enumerate(self.counts):
            for term in counts:
                self.postings.setdefault(term, []).append(position)

    def rank(self, query: str, limit: int = 20) -> list[int]:
        scores: dict[int, float] = {}
        for term in set(tokens(query)):
            idf = self.idf.get(term)
            if idf is None:
                continue
            for position in self.postings[term]:
                tf = self.counts[position][term]
                norm = K1 * (1 - B + B * self.lengths[position] / self.average)
                scores[position] = scores.get(position, 0.0) + idf * tf * (K1 + 1) / (tf + norm)
        return sorted(scores, key=lambda position: (-scores[position], position))[:limit]
