"""Code mode: an API (or a toolset) served as two tools, `search` (its operations as Python function
signatures) and `execute` (a short Python script in a sandbox made for code a model wrote,
pydantic-monty, each operation a function of the module `api`). Every call a script makes is a call
of the call service (service/): checked, admitted, counted, approved, keyed, sent once and audited as
a tool call is; only what the script returns reaches the model. Between service/ and gateway/, free
of MCP.

`CodeMode` is one API's or toolset's, and a caller's `Reach` says which of its tools that caller may use
and where a call of each goes (an API's own tools: `ApiReach`; a toolset's, each on its own API: made
in gateway/); `code_mode_tools` the two tools as plain data (`specbridge tools --code-mode` reads them
without the sandbox, which loads only with `CodeMode`).

Modules:

- `_mode`: `CodeMode`, one API's (or toolset's) two tools and what a call of each does.
- `_reach`: `Reach`, what one caller may use of a code mode's tools and where each call goes.
- `_tools`: `code_mode_tools`, the two tools as plain data (no sandbox, no MCP).
- `_signatures`: a tool as a typed Python function signature with its description.
- `_names`: each tool's name as a Python function of the `api` module.
- `_sandbox`: the sandbox (pydantic-monty) in worker processes of its own, driven one suspension at a
  time.
- `_calls`: a script's `api.<name>(…)` as one call of the call service, audited with the script's name.
- `_paused`: a paused script in the store, so any instance goes on with it, once.
- `_answer`: what the model is handed of a script: its value and what it printed, within the budget.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from ._calls import Context as Context
    from ._mode import CodeMode as CodeMode
    from ._mode import SchemaOf as SchemaOf
    from ._names import Names as Names
    from ._names import python_name as python_name
    from ._reach import ApiReach as ApiReach
    from ._reach import Reach as Reach
    from ._reach import Target as Target
    from ._sandbox import sandbox as sandbox
    from ._sandbox import sandbox_available as sandbox_available
    from ._signatures import signature as signature
    from ._tools import EXECUTE as EXECUTE
    from ._tools import SEARCH as SEARCH
    from ._tools import code_mode_tools as code_mode_tools
    from ._tools import document_tags as document_tags

__getattr__, __dir__ = lazy_exports(__name__)
