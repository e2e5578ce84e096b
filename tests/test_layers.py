"""The layer rule of ARCHITECTURE.md, checked on the source: each layer imports only those above it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "specbridge"
# The ground: the error tree, JSON out, network rules (public hosts, egress.allow, base URLs), the
# gateway's default deadline, `__version__`, JSON log lines, the audit log, the pages' style sheet, telemetry.
GROUND = {
    *("_audit", "_deadline", "_errors", "_files", "_json", "_lazy", "_logging", "_network", "_style"),
    *("_telemetry", "_version"),
}
SHARED = GROUND | {"__init__"}
ALLOWED = {
    "document": {"document"},
    "tools": {"document", "tools"},
    "config": {"document", "tools", "config"},
    "lint": {"document", "tools", "lint", "config"},
    "call": {"document", "tools", "call", "config"},
    "search": {"document", "tools", "search"},
    "store": {"store"},
    "approvals": {"config", "store", "approvals"},
    "access": {"config", "call", "access"},
    "grants": {"config", "call", "store", "access", "grants"},
    "files": {"tools", "call", "config", "store", "access", "files"},
    "webhooks": {"call", "config", "store", "approvals", "webhooks"},
    "service": {
        *(
            "document",
            "tools",
            "call",
            "config",
            "store",
            "approvals",
            "access",
            "files",
            "webhooks",
            "grants",
        ),
        "service",
    },
    "admin": {"config", "store", "approvals", "access", "grants", "service", "admin"},
    "front": {"config", "call", "store", "access", "grants", "admin", "front"},
    "codemode": {
        *("document", "tools", "call", "search", "config", "store", "approvals"),
        *("access", "files", "service", "codemode"),
    },
    "gateway": {
        *("document", "tools", "call", "search", "config", "store", "approvals"),
        *("access", "files", "webhooks", "grants", "service", "admin", "front", "codemode", "gateway"),
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


def _runtime_nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node of a module except those under `if TYPE_CHECKING:` (imports that never run)."""
    found, stack = [], [tree]
    while stack:
        node = stack.pop()
        found.append(node)
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and ast.unparse(child.test) == "TYPE_CHECKING":
                stack.extend(child.orelse)
            else:
                stack.append(child)
    return found


def _module_graph() -> dict[str, set[str]]:
    """Which modules of the package each module imports when it runs, an import inside a function
    included (it runs too, only later): `specbridge.gateway._server` -> {`specbridge.call`, …}."""
    modules = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        edges: set[str] = set()
        for node in _runtime_nodes(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom):
                base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
                target = ".".join([*base, *([node.module] if node.module else [])])
                # `from . import _sql` imports the module `_sql`; `from ._sql import x` the module `_sql`
                targets = [
                    f"{target}.{alias.name}" if f"{target}.{alias.name}" in modules else target
                    for alias in node.names
                ]
            elif isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            for target in targets:
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    edges.add(target)
        graph[name] = edges
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import cycles of `graph`: its strongly connected components of more than one module."""
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        order[node] = low[node] = len(order)
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if target not in order:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], order[target])
        if low[node] == order[node]:
            component = []
            while not component or component[-1] != node:
                component.append(stack.pop())
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in order:
            visit(node)
    return found


def test_the_cycle_finder_finds_a_cycle_hidden_anywhere() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_module_imports_a_module_that_imports_it_back() -> None:
    """No import cycle between modules, inside a package or across packages, also not hidden by an
    import inside a function."""
    assert _cycles(_module_graph()) == []
