"""ARCHITECTURE.md, read as a newcomer reads it: short, every package on one floor of its drawing, the
floors true of the source (a package imports only packages on floors below its own), every module it
names there; and each package's `__init__` docstring lists the package's modules, no more, no fewer."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from . import _reading

PAGE = _reading.ROOT / "ARCHITECTURE.md"
SOURCE = _reading.ROOT / "src" / "specbridge"
LARGEST = 6_000  # bytes: a page a newcomer reads whole
PACKAGES = frozenset(path.parent.name for path in SOURCE.glob("*/__init__.py"))
GROUND = frozenset(path.stem for path in SOURCE.glob("_*.py") if not path.stem.startswith("__"))
NAMED = re.compile(r"`([a-z]+)/(?:(_?[a-z0-9_]+)(?:\.py)?)?`|`(_[a-z][a-z0-9_]*)`")


def floors() -> list[set[str]]:
    """The drawing under "The floors", top floor first: the packages of each line (`gateway/`), and
    last the ground (`ground: _errors …`)."""
    [block] = [
        block for block in _reading.blocks(PAGE) if block.section and block.section.title == "The floors"
    ]
    found = []
    for line in block.lines:
        if line.startswith("ground:"):
            found.append(set(line.removeprefix("ground:").split()))
        else:  # the names before the line's description: `admin/  codemode/   the approvals page …`
            names = []
            for word in line.split():
                if not re.fullmatch(r"[a-z]+/", word):
                    break
                names.append(word.removesuffix("/"))
            found.append(set(names))
    return found


def floor_of() -> dict[str, int]:
    """Each package's and ground module's floor, counted from the ground (0) up."""
    levels = list(reversed(floors()))
    return {name: level for level, names in enumerate(levels) for name in names}


def imported_packages(path: Path) -> set[str]:
    """The packages and ground modules of specbridge a source file imports (`from ..call import x`,
    `from specbridge.store import y`, `from . import _z` inside the package itself)."""
    package = path.relative_to(SOURCE.parent).with_suffix("").parts[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = list(package[: len(package) - node.level + 1]) if node.level else []
            target = [*base, *(node.module.split(".") if node.module else [])]
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.Import):
            target, names = [], []
            for alias in node.names:
                found |= {alias.name.split(".")[1]} if alias.name.startswith("specbridge.") else set()
            continue
        else:
            continue
        if target[:1] != ["specbridge"]:
            continue
        found |= {target[1]} if len(target) > 1 else {name for name in names if name in PACKAGES | GROUND}
    return found


def test_the_page_is_short() -> None:
    assert PAGE.stat().st_size <= LARGEST, f"ARCHITECTURE.md is {PAGE.stat().st_size} bytes, over {LARGEST}"


def test_every_package_is_on_one_floor_and_the_ground_is_the_ground() -> None:
    drawn = [name for names in floors()[:-1] for name in names]  # a package on two floors counts twice
    assert sorted(drawn) == sorted(PACKAGES), "packages of src/specbridge and those drawn differ"
    assert floors()[-1] == set(GROUND), "the ground drawn is not the ground modules of src/specbridge"


def test_a_package_imports_only_packages_on_floors_below_its_own() -> None:
    level = floor_of()
    upward = []
    for name in sorted(PACKAGES | GROUND):
        files = (SOURCE / name).rglob("*.py") if name in PACKAGES else [SOURCE / f"{name}.py"]
        for path in files:
            for target in imported_packages(path) - {name}:
                if name in GROUND and target in GROUND:
                    continue  # the ground is one floor: its modules import each other
                if target in level and level[target] >= level[name]:
                    upward.append(f"{path.relative_to(SOURCE)} imports {target} (floor {level[target]})")
    assert not upward, "\n".join(upward)


def test_every_module_the_page_names_exists() -> None:
    missing = []
    for span in _reading.spans(PAGE):
        for match in NAMED.finditer(f"`{span.text}`"):
            package, module, ground = match.groups()
            if ground:
                exists = ground in GROUND
            elif module and package not in PACKAGES:  # `tests/test_layers.py`: a file of the repository
                exists = (_reading.ROOT / package / f"{module}.py").exists()
            elif module:
                exists = (SOURCE / package / f"{module}.py").exists()
            else:
                exists = package in PACKAGES
            if not exists:
                missing.append(f"{_reading.where(PAGE, span.line)}: `{span.text}`")
    assert not missing, "\n".join(missing)


def test_each_package_docstring_lists_its_modules() -> None:
    wrong = []
    for name in sorted(PACKAGES):
        modules = {path.stem for path in (SOURCE / name).glob("*.py") if path.stem != "__init__"}
        doc = ast.get_docstring(ast.parse((SOURCE / name / "__init__.py").read_text(encoding="utf-8"))) or ""
        listed = doc.partition("\nModules:\n")[2]
        words = set(re.findall(r"`(_?[a-z][a-z0-9_]*)`", listed))
        named = {word for word in words if word.startswith("_") or word in modules}
        if modules - named:
            wrong.append(f"{name}/__init__.py does not list {sorted(modules - named)}")
        if named - modules:
            wrong.append(f"{name}/__init__.py lists {sorted(named - modules)}, which it does not have")
    assert not wrong, "\n".join(wrong)
