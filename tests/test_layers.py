"""The layer rule of ARCHITECTURE.md, checked on the source: each layer imports only those above it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "specbridge"
# The ground: the error tree, JSON out, network rules (public hosts, egress.allow, base URLs), the
# gateway's default deadline, `__version__`, JSON log lines.
GROUND = {"_deadline", "_errors", "_files", "_json", "_lazy", "_logging", "_network", "_version"}
SHARED = GROUND | {"__init__"}
ALLOWED = {
    "document": {"document"},
    "tools": {"document", "tools"},
    "config": {"document", "tools", "config"},
    "lint": {"document", "tools", "lint", "config"},
    "call": {"document", "tools", "call", "config"},
    "search": {"document", "tools", "search"},
    "store": {"store"},
    "approvals": {"store", "approvals"},
    "access": {"config", "call", "access"},
    "files": {"tools", "call", "config", "store", "access", "files"},
    "webhooks": {"call", "config", "store", "approvals", "webhooks"},
    "service": {"document", "tools", "call", "config", "store", "approvals", "files", "webhooks", "service"},
    "admin": {"config", "store", "approvals", "access", "service", "admin"},
    "gateway": {
        *("document", "tools", "call", "search", "config", "store", "approvals"),
        *("access", "files", "webhooks", "service", "admin", "gateway"),
    },
    "examples": {"examples"},
}
MCP_ALLOWED = {"gateway", "cli"}  # nothing below the gateway knows about MCP


def _imports(path: Path) -> list[tuple[list[str], list[str]]]:
    """(module path below `specbridge`, names imported from it) for every import of the package."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = path.relative_to(PACKAGE.parent).with_suffix("").parts[:-1]
    found: list[tuple[list[str], list[str]]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = list(package[: len(package) - node.level + 1])
                target = [*base, *(node.module.split(".") if node.module else [])]
            else:
                target = (node.module or "").split(".")
            if target[:1] == ["specbridge"]:
                found.append((target[1:], [alias.name for alias in node.names]))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "specbridge":
                    found.append((parts[1:], []))
    return found


def _specbridge_imports(path: Path) -> set[str]:
    """The first part below `specbridge` of every module this file imports from the package."""
    return {module[0] if module else "__init__" for module, _ in _imports(path)}


def _home(path: Path) -> str:
    """The package a source file belongs to: `call` for call/_send.py, the module for a top-level one."""
    return path.relative_to(PACKAGE).with_suffix("").parts[0]


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


@pytest.mark.parametrize("module", sorted(GROUND))
def test_a_ground_module_imports_only_other_ground_modules(module: str) -> None:
    assert _specbridge_imports(PACKAGE / f"{module}.py") - GROUND == set()


def test_config_imports_nothing_from_the_call_path_or_the_gateway() -> None:
    offenders = {
        str(path.relative_to(PACKAGE)): sorted(_specbridge_imports(path) & {"call", "gateway", "lint", "cli"})
        for path in (PACKAGE / "config").rglob("*.py")
    }
    assert {file: found for file, found in offenders.items() if found} == {}


def test_no_private_module_or_name_is_imported_from_another_package() -> None:
    """`from ..tools._naming import x` or `from ..gateway import _x` couples a package to another's
    insides; what another package needs is exported from its `__init__` or lives in a ground module."""
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        for module, names in _imports(path):
            if not module or module[0] in GROUND or module[0] == _home(path):
                continue
            private = [part for part in module if part.startswith("_")]
            private += [name for name in names if name.startswith("_") and name != "__version__"]
            if private:
                offenders.append(f"{path.relative_to(PACKAGE)}: {'.'.join(module)} {private}")
    assert offenders == []
