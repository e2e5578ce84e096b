"""The two import rules of the tests (CONTRIBUTING.md, "Tests"), read from the source of a tree laid
out as this repository is (`tests/`, `src/specbridge/`):

- no module imports a test module (`test_*.py`, `conftest.py`): what tests share lives in
  `tests/support/` or in a `_helper` module of their own folder;
- a module of `tests/<pkg>/` imports only its own folder's helpers (`tests.<pkg>._helper`) and
  `tests.support`, and of the package's private modules and names only those of `specbridge.<pkg>`
  and of the ground (the top-level modules, `specbridge._errors` ...); `tests/support/` and the
  top-level test modules, only the ground's.

`offences(root)` lists each import that breaks one, as `path:line: rule: module`.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

TEST_IMPORTS_TEST = "imports a test module"
FOREIGN_HELPER = "imports another folder's test helper"
FOREIGN_PRIVATE = "imports another package's private module or name"


def _is_test_module(parts: list[str]) -> bool:
    return bool(parts) and (parts[-1].startswith("test_") or parts[-1] == "conftest")


def _is_module(root: Path, parts: list[str]) -> bool:
    """Whether `a.b.c` names a module or package file under `root` (else it is a name in one)."""
    for base in (root, root / "src"):
        path = base.joinpath(*parts)
        if path.with_suffix(".py").is_file() or (path / "__init__.py").is_file():
            return True
    return False


def _imported(root: Path, path: Path) -> Iterator[tuple[int, list[str], list[str]]]:
    """(line, module as parts, names) of every import in `path`, relative ones made absolute; a name
    that is itself a module (`from tests.docs import _reading`) is given as a module of its own."""
    package = list(path.relative_to(root).with_suffix("").parts[:-1])
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name.split("."), []
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = [*base, *(node.module.split(".") if node.module else [])]
            names = [alias.name for alias in node.names]
            modules = [name for name in names if _is_module(root, [*module, name])]
            for name in modules:
                yield node.lineno, [*module, name], []
            if len(modules) < len(names) or not names:
                yield node.lineno, module, [name for name in names if name not in modules]


def _ground(root: Path) -> set[str]:
    """The top-level modules of the package: what every package may import, privates included."""
    return {path.stem for path in (root / "src" / "specbridge").glob("*.py")}


def offences(root: Path) -> list[str]:
    """Each import under `root/tests` that breaks one of the two rules."""
    ground = _ground(root)
    found: list[str] = []
    for path in sorted((root / "tests").rglob("*.py")):
        where = path.relative_to(root / "tests").parts
        home = where[0] if len(where) > 1 else None
        for line, module, names in _imported(root, path):
            place = f"{path.relative_to(root)}:{line}"
            if module[:1] == ["tests"]:
                if _is_test_module(module):
                    found.append(f"{place}: {TEST_IMPORTS_TEST}: {'.'.join(module)}")
                elif len(module) > 2 and module[1] not in ("support", home):
                    found.append(f"{place}: {FOREIGN_HELPER}: {'.'.join(module)}")
            elif module[:1] == ["specbridge"] and len(module) > 1:
                inside = module[1:]
                if inside[0] in ground or (inside[0] == home and home != "support"):
                    continue
                private = [part for part in inside if part.startswith("_")]
                private += [name for name in names if name.startswith("_") and name != "__version__"]
                if private:
                    found.append(f"{place}: {FOREIGN_PRIVATE}: {'.'.join(module)} {private}")
    return found
