"""A stdio start's first answers made before the gateway and the MCP SDK are loaded, when no earlier
start recorded them (`_answers`): `initialize`, and `tools/list` of an API in search mode.

Loading the gateway and the SDK costs about 0.7 s of CPU; converting a large document (GitHub's 719
operations) about 0.3 s. Search mode's listing follows from the converted tools alone (the document's
title, the tool count, the tags: `_search_tools`), so the front converts the document, answers, and
hands the conversion over to the gateway (`ConversionCache.convert(keep=True)`), which converts
nothing again. Only where the answers cannot depend on anything else: no `--client`, no OAuth, no code
mode, no `get_call_result`, ranking that needs no model at start, a handshake-era client. Elsewhere
nothing is made here and the gateway answers (`tests/gateway/test_gateway_first_answers.py` holds
these answers to the gateway's own).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .._errors import SpecbridgeError
from .._version import __version__
from ..call import answer_tools
from ..config import ApiConfig, Config, check_tool_names
from ..search import ToolTags
from ..tools import ConversionCache, ToolSet, too_big_for_one_context
from ._search_tools import search_mode_tools

# The handshake-era revisions the MCP SDK answers an `initialize` in as asked (mcp_types.version's
# HANDSHAKE_PROTOCOL_VERSIONS; the test holds the two to each other). Another is the gateway's.
HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")

Answer = Callable[[str, Any], dict[str, Any] | None]


@dataclass(frozen=True, slots=True)
class FirstAnswers:
    """`answer(method, params)`: the answer to a request (None: the gateway's to give); `refs`: the
    digest of every file the document's `$ref`s read, for recording the answers (`_answers`)."""

    answer: Answer
    refs: Mapping[str, str]


def first_answers(
    config: Config, api: str, client: str | None, cache: ConversionCache
) -> FirstAnswers | None:
    """How the front answers a request, or None when nothing can be answered before the gateway
    loads. The document is converted here (and kept for the gateway)."""
    settings = config.apis.get(api)
    if settings is None or not _answerable(config, settings, client):
        return None
    try:
        tools = cache.convert(
            settings.spec, settings.convert_options(), ref_dirs=settings.ref_dirs, keep=True
        )
        toolset = answer_tools(settings, check_tool_names(settings, tools))
    except SpecbridgeError:  # the gateway meets it too, and says it as it always does
        return None
    if not (settings.search == "on" or (settings.search == "auto" and too_big_for_one_context(toolset))):
        return None
    listed = {"tools": _search_listing(toolset)}
    initialized = {
        "capabilities": {"tools": {"listChanged": True}},
        "serverInfo": {"name": f"specbridge-{api}", "title": f"specbridge: {api}", "version": __version__},
    }

    def answer(method: str, params: Any) -> dict[str, Any] | None:
        params = params if params is not None else {}
        if not isinstance(params, Mapping):
            return None
        if method == "initialize":
            version = params.get("protocolVersion")
            if version not in HANDSHAKE_VERSIONS or not isinstance(params.get("capabilities"), Mapping):
                return None
            return {"result": {**initialized, "protocolVersion": version}}
        if method == "tools/list" and not {*params} - {"_meta"}:
            return {"result": listed}
        return None

    return FirstAnswers(answer, toolset.document.resolver.file_digests())


def _answerable(config: Config, api: ApiConfig, client: str | None) -> bool:
    """Whether `api`'s first answers follow from its document and these settings alone."""
    return (
        client is None
        and api.oauth is None
        and not api.operations
        and bool(api.spec)
        and api.search != "off"
        and not api.code_mode.enabled
        and not api.calls.long
        and not (api.approvals.send == "on_answer" and any(t.requires_approval for t in api.tools.values()))
        and config.search.semantic != "on"
    )


def _search_listing(toolset: ToolSet) -> list[dict[str, Any]]:
    tags = ToolTags.of(toolset.tools, toolset.document.data)
    return search_mode_tools(toolset.document.title, len(toolset.tools), tags.counted(None))
