"""An API's tools as the gateway serves them, made from its document off the event loop.

The document file's conversion comes from the conversion cache when the file (and every file its
`$ref`s read) is unchanged (`tools.ConversionCache`); a fetched document, or one with config operations,
is converted each time. Then the config's tool names are checked and `fields` added where
`answers.select` says. A search index is not built here but described (`Loaded.index`, built on first
use by `SearchMode`), except when the config requires the model (`semantic: on`: then a missing model
stops the start, as it always did) or code mode is on.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

from .._errors import DocumentError
from ..call import answer_tools
from ..config import ApiConfig, Config, SearchIndexConfig, api_toolset, check_tool_names
from ..document import is_url
from ..search import SearchIndex
from ..tools import ConversionCache, ToolSet, too_big_for_one_context
from ._changes import digest as spec_digest
from ._search import build_index, search_settings


@dataclass(frozen=True, slots=True)
class Loaded:
    toolset: ToolSet
    digest: str  # of the document file, to tell a changed file on reload
    index: Callable[[], SearchIndex] | None  # search mode: how its index is built; None: no search mode


def converted(api: ApiConfig, cache: ConversionCache | None) -> ToolSet:
    """The tools of `api`'s document, as `config.api_toolset` makes them (from the cache when it can)."""
    if cache is not None and api.spec and not api.operations and not is_url(api.spec):
        return check_tool_names(api, cache.convert(api.spec, api.convert_options(), ref_dirs=api.ref_dirs))
    return api_toolset(api)


def load_api(
    api: ApiConfig,
    config: Config,
    *,
    old: ToolSet | None = None,
    old_digest: str = "",
    search_config: SearchIndexConfig | None = None,
    cache: ConversionCache | None = None,
    read: bool = True,
) -> Loaded:
    """`api` loaded afresh; with `old` (the tools it served before), the old document is converted again
    under the new settings when the file cannot be read now, or without `read` (a document at a URL,
    read apart from the reload: `_reads`)."""
    try:
        if not read and old is not None:
            tools, digest = api_toolset(api, old.document), old_digest
        else:
            tools, digest = converted(api, cache), spec_digest(api.spec)
    except DocumentError:
        if old is None:
            raise
        tools, digest = api_toolset(api, old.document), old_digest
    # as the model is handed them: `fields` where `answers.select` says (call/_fields.py)
    toolset = answer_tools(api, tools)
    search = api.search == "on" or (api.search == "auto" and too_big_for_one_context(toolset))
    if not (search or api.code_mode.enabled):  # code mode's `search` tool ranks with the index too
        return Loaded(toolset, digest, None)
    settings = search_settings(search_config or config.search, config.store)
    index: Callable[[], SearchIndex] = functools.partial(build_index, toolset, settings)
    if settings.semantic == "on" or api.code_mode.enabled:  # built now: code mode takes it built
        built = index()
        index = functools.partial(_ready, built)
    return Loaded(toolset, digest, index)


def _ready(index: SearchIndex) -> SearchIndex:
    return index
