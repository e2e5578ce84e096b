"""How big a tool list is for a model: tool definitions are sent before every request it makes."""

from __future__ import annotations

from .._json import dumps_bytes
from ._export import export_mcp
from ._model import ToolSet

BYTES_PER_TOKEN = 4  # a rough, tokenizer-free estimate for JSON of English text
# 20,000 tokens is a tenth of a 200k-token context; past about 40 tools, tool choice gets worse.
CATALOGUE_MAX_TOKENS = 20_000
CATALOGUE_MAX_TOOLS = 40


def catalogue_tokens(toolset: ToolSet) -> int:
    return len(dumps_bytes(export_mcp(toolset))) // BYTES_PER_TOKEN


def too_big_for_one_context(toolset: ToolSet) -> bool:
    """Past either threshold, a client is better served by search than by the whole list."""
    return len(toolset.tools) > CATALOGUE_MAX_TOOLS or catalogue_tokens(toolset) > CATALOGUE_MAX_TOKENS
