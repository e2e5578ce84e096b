"""Public names of a package loaded on first use (PEP 562), so importing a package costs only what is
used: the check worker process imports `specbridge.call` for a check, not httpx or the MCP SDK."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping


def lazy_exports(
    package: str, homes: Mapping[str, str]
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """The `__getattr__` and `__dir__` of `package`, whose name `n` lives in module `homes[n]` (relative
    to the package; `module:attribute` when it is named otherwise there); each name is imported once,
    then kept in the package."""

    def load(name: str) -> object:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, _, attribute = home.partition(":")
        value = getattr(importlib.import_module(module, package), attribute or name)
        setattr(sys.modules[package], name, value)
        return value

    def names() -> list[str]:
        return sorted({*vars(sys.modules[package]), *homes})

    return load, names
