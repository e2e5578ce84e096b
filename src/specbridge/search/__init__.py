"""Finding the right tool for a task as a person says it: tool documents and the resources they work
on, stems and synonyms, BM25, the kind of action the query means, and optional semantic ranking fused
by a weighted sum of scores. Knows tools, not MCP.

Every name loads on first use (module `__getattr__`): a gateway in search mode builds its index (and
loads the stemmer and any model) when the first search needs it, not when it starts.
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
    from ._text import Synonyms as Synonyms
    from ._text import default_synonyms as default_synonyms
    from ._text import stem as stem
    from ._text import terms as terms
    from ._text import words as words


__getattr__, __dir__ = lazy_exports(__name__)
