"""Which of the two ways of handing over a large API an API's state gets: search mode (`_search`) or
code mode (codemode/, `_code`), both over one search index; a config's `code_mode` picks code mode."""

from __future__ import annotations

from .._errors import ErrorCode, SpecbridgeError
from ..call import Caller
from ..codemode import CodeMode as CodeMode
from ..codemode import sandbox_available
from ..config import ApiConfig
from ..search import SearchIndex
from ..tools import ToolSet
from ._metrics import Metrics
from ._search import SearchMode


def wants_index(api: ApiConfig, search: bool) -> bool:
    """Whether the API's state needs a search index: search mode, or code mode (its `search` tool)."""
    return search or api.code_mode.enabled


def modes(
    api: ApiConfig, toolset: ToolSet, caller: Caller, index: SearchIndex | None, metrics: Metrics
) -> tuple[SearchMode | None, CodeMode | None]:
    """Search mode or code mode for the API, over `index` (neither without one)."""
    if index is None:
        return None, None
    if api.code_mode.enabled:
        if not sandbox_available():
            raise SpecbridgeError(
                f"apis.{api.name}.code_mode needs the code extra (pydantic_monty is not installed): "
                "pip install 'specbridge[code]'",
                code=ErrorCode.EXTRA_MISSING,
            )
        return None, CodeMode(api, toolset, caller, index)
    return SearchMode(api.name, toolset, caller, index, metrics), None
