"""The search index of one API: BM25 over rich tool documents, plus a BM25 over the descriptions of the
resources the tools work on (`_resource`), optionally fused with semantic ranking.

`SearchIndex.search` never answers with nothing: when no word of the query (nor any synonym) appears in
any tool, it answers with the nearest tools by meaning (with the extra) or by spelling, and says the
match is weak.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..tools import Tool
from ._bm25 import Bm25
from ._document import (
    ACTION_WORDS,
    FIELD_WEIGHTS,
    RESOURCE_WEIGHTS,
    ToolText,
    action,
    tag_descriptions,
    tool_text,
)
from ._intent import action_stems, meant_actions
from ._producers import producer_positions, with_producers
from ._resource import resource
from ._semantic import Encoder, SearchSettings, fuse, load_encoder, tool_vectors
from ._tags import ToolTags
from ._text import Synonyms, default_synonyms, terms, words

CANDIDATES = 50  # how many tools the fusion ranks; the rest follow in BM25's order
ADMIN_FACTOR = 0.5  # an admin variant's score when the query does not say admin (chosen on the tune sets)
_ADMIN = terms("admin")[0]
LEXICAL_SHARE = 0.35  # BM25's share in the fused score, the similarity's the rest (chosen on the tune sets)
ACTION_FACTOR = 0.8  # BM25's score of a tool whose action the query does not mean (`_intent`; tune sets)
_ACTION_STEMS = action_stems(ACTION_WORDS)


@dataclass(frozen=True, slots=True)
class SearchAnswer:
    tools: tuple[Tool, ...]
    weak: bool  # no word of the query matched: these are only the nearest by other signals
    tag: str | None = None  # the tag the search was narrowed to, as the document spells it
    unknown_tag: str | None = None  # a tag filter that names no tag (every tool was searched)
    # producers returned for a hit's ids (`_producers`): the producer's name -> the hit's name
    added_for: Mapping[str, str] = field(default_factory=dict)


def _trigrams(text: str) -> set[str]:
    found: set[str] = set()
    for word in words(text):
        padded = f" {word} "
        found.update(padded[i : i + 3] for i in range(len(padded) - 2))
    return found


@dataclass(frozen=True, slots=True)
class SearchIndex:
    tools: tuple[Tool, ...]
    texts: tuple[ToolText, ...]
    bm25: Bm25
    synonyms: Synonyms
    tags: tuple[tuple[str, int], ...]  # every tag of the API with its tool count, in document order
    spelling: tuple[frozenset[str], ...]  # character trigrams of each tool's name and title
    administrative: frozenset[int] = frozenset()  # tools whose name or path says admin
    actions: tuple[str, ...] = ()  # each tool's kind of action (`_document.action`)
    encoder: Encoder | None = None
    vectors: Any = None  # one unit vector per tool when the encoder is there
    described: Bm25 | None = None  # BM25 over the resources' descriptions
    # per tool, per required id it needs, its producers' positions (empty without provenance)
    producers: tuple[tuple[tuple[int, ...], ...], ...] = ()

    @classmethod
    def build(
        cls,
        tools: Sequence[Tool],
        document_data: Any = None,
        *,
        settings: SearchSettings | None = None,
        encoder: Encoder | None = None,
        synonyms: Synonyms | None = None,
    ) -> SearchIndex:
        """The index of `tools`; `document_data` (the raw document) supplies tags and their descriptions.
        `encoder` overrides the model `settings` would load."""
        settings = settings or SearchSettings()
        descriptions = tag_descriptions(document_data)
        tagged = ToolTags.of(tools, document_data)
        texts = tuple(
            tool_text(
                tool,
                tags,
                descriptions,
                resource(document_data, tool.operation)[1] if isinstance(document_data, dict) else "",
            )
            for tool, tags in zip(tools, tagged.each, strict=True)
        )
        bm25 = Bm25.build(
            [{field: text.fields[field] for field in FIELD_WEIGHTS} for text in texts], FIELD_WEIGHTS
        )
        described = Bm25.build([{"resource": text.fields["resource"]} for text in texts], RESOURCE_WEIGHTS)
        if encoder is None:
            encoder = load_encoder(settings)
        vectors = None
        if encoder is not None:
            views = [
                [text.sentences[view] for text in texts]
                for view in range(len(texts[0].sentences) if texts else 0)
            ]
            flat = tool_vectors(
                encoder, [sentence for view in views for sentence in view], settings.cache_folder()
            )
            vectors = flat.reshape(len(views), len(texts), -1)
        return cls(
            tools=tuple(tools),
            texts=texts,
            bm25=bm25,
            synonyms=synonyms or default_synonyms(),
            tags=tagged.tags,
            spelling=tuple(frozenset(_trigrams(f"{tool.name} {tool.title or ''}")) for tool in tools),
            administrative=frozenset(i for i, text in enumerate(texts) if _ADMIN in text.fields["name"]),
            actions=tuple(action(tool.operation.method, tool.operation.path) for tool in tools),
            encoder=encoder,
            vectors=vectors,
            described=described,
            producers=producer_positions(tools),
        )

    @property
    def semantic(self) -> bool:
        return self.vectors is not None

    def tags_of(self, only: frozenset[int] | None) -> tuple[tuple[str, int], ...]:
        """The API's tags with their tool counts, counting only the tools at positions `only` (None:
        every tool); a tag with none of them is left out."""
        if only is None:
            return self.tags
        return ToolTags(tuple(text.tags for text in self.texts), self.tags).counted(only)

    def _tagged(self, tag: str, only: frozenset[int] | None) -> tuple[str | None, list[int] | None]:
        wanted = tag.strip().casefold()
        for name, _ in self.tags_of(only):
            if name.casefold() == wanted:
                return name, [
                    i
                    for i, text in enumerate(self.texts)
                    if name in text.tags and (only is None or i in only)
                ]
        return None, None

    def search(
        self, query: str, limit: int = 5, tag: str | None = None, only: frozenset[int] | None = None
    ) -> SearchAnswer:
        """The best `limit` tools for `query` (ties in name order), narrowed to one tag if given, and to
        the tools at positions `only` (those one caller may use) if given: the others are never found."""
        canonical, allowed = self._tagged(tag, only) if tag else (None, None)
        unknown = tag if tag and canonical is None else None
        if allowed is None and only is not None:
            allowed = sorted(only)
        if not query.strip():
            pool = allowed if allowed is not None else list(range(len(self.tools)))
            browsed = tuple(self.tools[i] for i in pool[:limit])
            return SearchAnswer(browsed, canonical is None, canonical, unknown)  # no words, no tag: weak
        ranked, weak = self.rank(query, allowed)
        if weak or not any(self.producers):
            return SearchAnswer(tuple(self.tools[i] for i in ranked[:limit]), weak, canonical, unknown)
        chosen, added = with_producers(
            ranked, self.producers, limit, None if allowed is None else set(allowed)
        )
        return SearchAnswer(
            tuple(self.tools[i] for i in chosen),
            weak,
            canonical,
            unknown,
            {self.tools[p].name: self.tools[h].name for p, h in added.items()},
        )

    def rank(self, query: str, allowed: Sequence[int] | None = None) -> tuple[list[int], bool]:
        """Tool positions, best first, and whether the match is weak."""
        said = terms(query) or [query.strip().lower()]
        expanded = self.synonyms.expand(said)
        scores = self.bm25.scores(expanded)
        if self.described is not None:
            # what the resource is for, as its schema describes it (shared by its operations)
            for i, score in self.described.scores(expanded).items():
                scores[i] = scores.get(i, 0.0) + score
        meant = meant_actions(query, said, _ACTION_STEMS)
        if meant and self.actions:
            # Of the tools that match the words, the one doing what was asked comes first.
            for i in scores:
                if self.actions[i] != "act" and self.actions[i] not in meant:
                    scores[i] *= ACTION_FACTOR
        if _ADMIN not in said:
            # An admin variant repeats a user's operation for whoever runs the workspace; a person
            # who does not say admin means their own.
            for i in self.administrative & scores.keys():
                scores[i] *= ADMIN_FACTOR
        if allowed is not None:
            keep = set(allowed)
            scores = {i: score for i, score in scores.items() if i in keep}
        lexical = sorted(scores, key=lambda i: (-scores[i], self.tools[i].name))
        weak = not lexical
        if self.encoder is not None and self.vectors is not None and len(self.tools):
            query_vector = self.encoder.encode([query])[0]
            fused = fuse(
                self.vectors,
                query_vector,
                scores,
                allowed,
                LEXICAL_SHARE,
                CANDIDATES,
                dict.fromkeys(self.administrative, ADMIN_FACTOR) if _ADMIN not in said else None,
            )
            chosen = set(fused)
            return fused + [i for i in lexical if i not in chosen], weak
        if lexical:
            return lexical, weak
        return self._by_spelling(query, allowed), True

    def _by_spelling(self, query: str, allowed: Sequence[int] | None) -> list[int]:
        """Nearest by shared character trigrams (a misspelt or foreign word), then document order."""
        wanted = _trigrams(query)
        pool = list(allowed) if allowed is not None else list(range(len(self.tools)))
        overlap = {i: len(wanted & self.spelling[i]) for i in pool}
        return sorted(pool, key=lambda i: (-overlap[i], i))
