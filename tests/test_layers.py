"""The layer rule of ARCHITECTURE.md, checked on the source: each layer imports only those above it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "specbridge"
SHARED = {"_errors", "_json", "__init__"}  # the error tree, JSON out, and `__version__`
ALLOWED = {
    "spec": {"spec"},
    "tools": {"spec", "tools"},
    "lint": {"spec", "tools", "lint", "config"},
    "call": {"spec", "tools", "call", "config"},
    "search": {"spec", "tools", "search"},
    "gateway": {"spec", "tools", "call", "search", "gateway", "config"},
    "examples": {"examples"},
}
MCP_ALLOWED = {"gateway", "cli"}  # nothing below the gateway knows about MCP


def _specbridge_imports(path: Path) -> set[str]:
    """The first part below `specbridge` of every module this file imports from the package."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = path.relative_to(PACKAGE.parent).with_suffix("").parts[:-1]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = list(package[: len(package) - node.level + 1])
                target = [*base, *(node.module.split(".") if node.module else [])]
            else:
                target = (node.module or "").split(".")
            if target[:1] == ["specbridge"]:
                found.add(target[1] if len(target) > 1 else "__init__")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "specbridge":
                    found.add(parts[1] if len(parts) > 1 else "__init__")
    return found


def _third_party(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = {
        alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    }
    names |= {
        (node.module or "").split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and not node.level
    }
    return names


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_a_layer_imports_only_the_layers_above_it(layer: str) -> None:
    wrong = {
        str(path.relative_to(PACKAGE)): sorted(_specbridge_imports(path) - ALLOWED[layer] - SHARED)
        for path in (PACKAGE / layer).rglob("*.py")
    }
    assert {file: imports for file, imports in wrong.items() if imports} == {}


def test_nothing_below_the_gateway_imports_the_mcp_sdk() -> None:
    offenders = [
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if path.relative_to(PACKAGE).parts[0] not in MCP_ALLOWED and _third_party(path) & {"mcp", "mcp_types"}
    ]
    assert offenders == []


def test_only_the_command_line_imports_the_command_line() -> None:
    offenders = [
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if path.relative_to(PACKAGE).parts[0] not in ("cli", "__main__.py")
        and "cli" in _specbridge_imports(path)
    ]
    assert offenders == []
