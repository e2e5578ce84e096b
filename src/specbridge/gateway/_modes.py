"""Which of the two ways of handing over a large API an API's state gets: search mode (`_search`) or
code mode (codemode/, `_code`), both over one search index; a config's `code_mode` picks code mode
(a toolset's too: `_toolset_code`)."""

from __future__ import annotations

from collections.abc import Callable

from .._errors import ErrorCode, SpecbridgeError
from ..call import Caller
from ..codemode import CodeMode as CodeMode
from ..codemode import sandbox_available
from ..config import ApiConfig
from ..search import SearchIndex
from ..tools import ToolSet
from ._metrics import Metrics
from ._search import SearchMode


def modes(
    api: ApiConfig,
    toolset: ToolSet,
    caller: Caller,
    index: Callable[[], SearchIndex] | None,
    metrics: Metrics,
) -> tuple[SearchMode | None, CodeMode | None]:
    """Search mode or code mode for the API, over the index `index` builds (neither without one; code
    mode's is built already: `_loading`)."""
    if index is None:
        return None, None
    if api.code_mode.enabled:
        need_sandbox(f"apis.{api.name}.code_mode")
        return None, CodeMode.of_api(api, toolset, index())
    return SearchMode(api.name, toolset, caller, index, metrics), None


def need_sandbox(key: str) -> None:
    """Code mode at config key `key` needs the sandbox: `extra-missing` without it."""
    if not sandbox_available():
        raise SpecbridgeError(
            f"{key} needs the code extra (pydantic_monty is not installed): pip install 'specbridge[code]'",
            code=ErrorCode.EXTRA_MISSING,
        )
