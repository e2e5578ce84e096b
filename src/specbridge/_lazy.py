"""Public names of a package loaded on first use (PEP 562), so importing a package costs only what is
used: the check worker process imports `specbridge.call` for a check, not httpx or the MCP SDK.

A package lists its lazy names once, as the imports mypy reads, and hands itself to `lazy_exports`:

    if TYPE_CHECKING:
        from ._caller import Caller as Caller        # the one list: mypy sees the types here

    __getattr__, __dir__ = lazy_exports(__name__)

The first time a name is asked for, the package's own source is read for that list (so `import x`
alone reads nothing): each name then loads from its module, once. `__all__` is served the same way:
every name the package imports as itself (`X as X`, the explicit re-export mypy and ruff know), eager
or lazy, in ruff's order.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable


def lazy_exports(package: str) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """The `__getattr__` and `__dir__` of `package`, whose lazy names are its `if TYPE_CHECKING:`
    imports; each name is imported once, then kept in the package."""
    found: list[tuple[dict[str, str], list[str]]] = []

    def exports() -> tuple[dict[str, str], list[str]]:
        if not found:
            found.append(_read(package))
        return found[0]

    def load(name: str) -> object:
        homes, public = exports()
        if name == "__all__":
            value: object = list(public)
        elif name in homes:
            value = getattr(importlib.import_module(homes[name], package), name)
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        setattr(sys.modules[package], name, value)
        return value

    def names() -> list[str]:
        return sorted({*vars(sys.modules[package]), *exports()[0]})

    return load, names


def _read(package: str) -> tuple[dict[str, str], list[str]]:
    """From the package's source: its lazy names (the `TYPE_CHECKING` imports) with the module each
    lives in, and all its public names (imported `X as X`)."""
    import ast  # only here: a process that never asks for a lazy name never loads the parser

    spec = sys.modules[package].__spec__
    get_source = getattr(spec.loader if spec is not None else None, "get_source", None)
    tree = ast.parse((get_source(package) if get_source is not None else None) or "")
    homes: dict[str, str] = {}
    public: list[str] = []
    for node in tree.body:
        lazy = isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"
        for statement in node.body if isinstance(node, ast.If) and lazy else [node]:
            if not isinstance(statement, ast.ImportFrom):
                continue
            for alias in statement.names:
                if alias.asname == alias.name:
                    public.append(alias.name)
                    if lazy:
                        homes[alias.name] = "." * statement.level + (statement.module or "")
    return homes, sorted(set(public), key=_ruff_order)


def _ruff_order(name: str) -> tuple[int, str]:
    """ruff's RUF022 order: CONSTANTS, then Classes, then functions and the rest."""
    return (0 if name.isupper() else 1 if name[:1].isupper() else 2, name)
