"""Text into search terms: words split out of names and paths, English stems, and the synonym layer.

`terms("listPullRequests")` gives the stems of list, pull, request. Names are split at camelCase humps,
underscores, dots, slashes and dashes. Stemming is Snowball English (PyStemmer). The synonym groups are
data (`synonyms.txt`, shipped with the package): a query word also finds the other words of its group.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import Stemmer

_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
# English function words, and the filler of a request ("I want to…", "can you…"): they say nothing
# about which operation is meant.
STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "can",
        "could",
        "do",
        "does",
        "for",
        "from",
        "had",
        "has",
        "have",
        "how",
        "i",
        "i'd",
        "i'm",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "me",
        "my",
        "of",
        "on",
        "or",
        "our",
        "ours",
        "please",
        "so",
        "that",
        "the",
        "their",
        "them",
        "there",
        "these",
        "they",
        "this",
        "those",
        "to",
        "us",
        "want",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "while",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "returns",
        "errors",
    ]
)
SYNONYM_WEIGHT = 0.5  # a synonym counts half as much as the word the person said


@lru_cache(maxsize=1)
def _stemmer() -> Stemmer.Stemmer:
    return Stemmer.Stemmer("english")


@lru_cache(maxsize=1)
def _same() -> Mapping[str, str]:
    """Spellings of one word (`repo`, `repository`; `org`, `organisation`), from the `=` lines of
    `synonyms.txt`: each stem of a line stands for the line's first, in queries and tools alike."""
    same: dict[str, str] = {}
    text = resources.files(__package__).joinpath("synonyms.txt").read_text(encoding="utf-8")
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if line.startswith("="):
            spellings = [_stemmer().stemWord(entry.strip().lower()) for entry in line[1:].split(",")]
            for spelling in spellings[1:]:
                same[str(spelling)] = str(spellings[0])
    return same


# Words the stemmer would fold into another word of a different meaning: "settings" (a noun: what is
# configured) is not "set" (a verb: change), nor part of a `StatefulSet`.
_UNFOLDED = {"setting": "setting", "settings": "setting"}


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    stemmed = _UNFOLDED.get(word) or str(_stemmer().stemWord(word))
    return _same().get(stemmed, stemmed)


def words(text: str) -> list[str]:
    """Lower-case words, split at humps and punctuation, stop words dropped (`get_users/{id}` → get, users, id)."""
    return [lowered for word in _WORDS.findall(text) if (lowered := word.lower()) not in STOP_WORDS]


def first_word(text: str) -> str:
    """The first word of `text`, lower-cased, stop words kept ("Which pods…" → which); "" if none."""
    found = _WORDS.search(text)
    return found.group(0).lower() if found else ""


def terms(text: str) -> list[str]:
    """The stems of `text`'s words, in order."""
    return [stem(word) for word in words(text)]


@dataclass(frozen=True, slots=True)
class Synonyms:
    """Groups of stems that mean the same thing; a phrase is a tuple of stems that must stand together."""

    groups: tuple[frozenset[tuple[str, ...]], ...]
    by_first: Mapping[str, tuple[tuple[tuple[str, ...], int], ...]]  # first stem -> (phrase, group)

    @classmethod
    def parse(cls, text: str) -> Synonyms:
        groups: list[frozenset[tuple[str, ...]]] = []
        for line in text.splitlines():
            line = line.split("#", 1)[0].strip()
            if not line or line.startswith("="):
                continue
            phrases = {tuple(terms(entry)) for entry in line.split(",")}
            phrases.discard(())
            if len(phrases) > 1:
                groups.append(frozenset(phrases))
        by_first: dict[str, list[tuple[tuple[str, ...], int]]] = {}
        for number, group in enumerate(groups):
            for phrase in group:
                by_first.setdefault(phrase[0], []).append((phrase, number))
        return cls(tuple(groups), {first: tuple(found) for first, found in by_first.items()})

    def expand(self, stems: list[str]) -> dict[str, float]:
        """Query stems with their weights. Each said stem counts 1, and brings the other members of
        its groups at `SYNONYM_WEIGHT`. A phrase of several words ("get rid of", "money back") is an
        idiom: it brings its group at full weight, and its own words drop to `SYNONYM_WEIGHT`."""
        weights = dict.fromkeys(stems, 1.0)
        brought: dict[str, float] = {}
        for position, first in enumerate(stems):
            for phrase, number in self.by_first.get(first, ()):
                if tuple(stems[position : position + len(phrase)]) != phrase:
                    continue
                weight = 1.0 if len(phrase) > 1 else SYNONYM_WEIGHT
                if len(phrase) > 1:
                    for word in phrase:
                        weights[word] = min(weights[word], SYNONYM_WEIGHT)
                for other in self.groups[number]:
                    for word in other:
                        share = weight / len(other)
                        brought[word] = max(brought.get(word, 0.0), share)
        for word, weight in brought.items():
            if word not in stems:
                weights[word] = max(weights.get(word, 0.0), weight)
        return weights


@lru_cache(maxsize=1)
def default_synonyms() -> Synonyms:
    return Synonyms.parse(resources.files(__package__).joinpath("synonyms.txt").read_text(encoding="utf-8"))
