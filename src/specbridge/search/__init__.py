"""Finding the right tool for a task as a person says it: tool documents and the resources they work
on, stems and synonyms, BM25, the kind of action the query means, and optional semantic ranking fused
by a weighted sum of scores. Knows tools, not MCP.

Every name loads on first use (module `__getattr__`): a gateway in search mode builds its index (and
loads the stemmer and any model) when the first search needs it, not when it starts.

Modules:

- `_index`: `SearchIndex`, one API's index: BM25 fused with similarity, the meant action, tags, never an
  empty answer.
- `_document`: each tool's words by field, each field with its weight.
- `_text`: words out of names and paths, Snowball stems, the synonym groups of `synonyms.txt`.
- `_bm25`: BM25 with postings, so a search touches only matching tools.
- `_resource`: what an operation's resource is, from its component schema's description: a BM25 of its
  own.
- `_intent`: the kind of action a query means.
- `_producers`: a hit's producers returned beside it (the tools whose answers give its ids).
- `_tags`: each operation's tags and every tag with its tool count; `tag_list`, the tags a search
  tool's description names.
- `_semantic`, `_minilm`: the optional `semantic` extra: a sentence-embedding model, run with numpy,
  tool vectors kept on disk.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from ._index import SearchAnswer as SearchAnswer
    from ._index import SearchIndex as SearchIndex
    from ._semantic import Encoder as Encoder
    from ._semantic import SearchSettings as SearchSettings
    from ._semantic import SemanticUnavailable as SemanticUnavailable
    from ._semantic import cache_key as cache_key
    from ._semantic import hub_model_dir as hub_model_dir
    from ._semantic import load_encoder as load_encoder
    from ._tags import ToolTags as ToolTags
    from ._tags import tag_list as tag_list
    from ._text import Synonyms as Synonyms
    from ._text import default_synonyms as default_synonyms
    from ._text import stem as stem
    from ._text import terms as terms
    from ._text import words as words


__getattr__, __dir__ = lazy_exports(__name__)
