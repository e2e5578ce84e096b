"""Each tool's name as a Python function of the `api` module a script calls: `api.getOrder(...)`.

A tool name is an MCP name ([A-Za-z0-9_.-], up to 128 characters), which may not be a Python name:
`-` and `.` become `_`, a name that starts with a digit or `_` gets `op_` before it (the sandbox hides
module names that start with `_`), a keyword gets `_` after it. Two tools whose names become one are
told apart by `_2`, `_3` … in the order of the toolset, so a name never depends on which tools a
caller may use.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Iterable, Mapping
from types import MappingProxyType

_NOT_NAME = re.compile(r"[^0-9A-Za-z_]")


def python_name(tool: str) -> str:
    """The Python name of one tool name, before clashes are told apart."""
    name = _NOT_NAME.sub("_", tool) or "op"
    if name[0].isdigit() or name.startswith("_"):
        name = "op_" + name.lstrip("_")
    if keyword.iskeyword(name) or keyword.issoftkeyword(name):
        name += "_"
    return name


class Names:
    """Python name ↔ tool name, for every tool of one API."""

    def __init__(self, tools: Iterable[str]) -> None:
        by_python: dict[str, str] = {}
        by_tool: dict[str, str] = {}
        for tool in tools:
            base = name = python_name(tool)
            count = 1
            while name in by_python:
                count += 1
                name = f"{base}_{count}"
            by_python[name] = tool
            by_tool[tool] = name
        self.tools: Mapping[str, str] = MappingProxyType(by_python)  # python name -> tool name
        self.python: Mapping[str, str] = MappingProxyType(by_tool)  # tool name -> python name

    def tool(self, python: str) -> str | None:
        return self.tools.get(python)

    def of(self, tool: str) -> str:
        return self.python[tool]
