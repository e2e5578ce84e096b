"""The package's public surface stays deliberate."""

from __future__ import annotations

import ast
import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

import specbridge
import specbridge.call
import specbridge.document
import specbridge.tools

LAZY = [
    "specbridge",
    "specbridge.admin",
    "specbridge.call",
    "specbridge.document",
    "specbridge.files",
    "specbridge.gateway",
]  # names loaded on first use


def _isort_style(name: str) -> tuple[int, str]:
    """ruff's RUF022 order: CONSTANTS, then Classes, then functions."""
    return (0 if name.isupper() else 1 if name[:1].isupper() else 2, name)


def test_all_is_sorted_and_every_name_exists() -> None:
    assert list(specbridge.__all__) == sorted(specbridge.__all__, key=_isort_style)
    for module in (specbridge, specbridge.call, specbridge.document, specbridge.tools):
        missing = [name for name in module.__all__ if not hasattr(module, name)]
        assert missing == [], module.__name__
        assert len(set(module.__all__)) == len(module.__all__)


def test_the_subpackages_list_their_names_in_ruff_s_order() -> None:
    for module in (specbridge.document, specbridge.tools):
        assert list(module.__all__) == sorted(module.__all__, key=_isort_style), module.__name__


def test_the_names_other_layers_import_stay_public() -> None:
    for name in ("Tool", "Argument", "Body", "ToolSet", "convert", "strict_schema", "is_forbidden_header"):
        assert name in specbridge.tools.__all__
    for name in ("ApiDocument", "Operation", "load_document", "parse_document", "Resolver"):
        assert name in specbridge.document.__all__


@pytest.mark.parametrize("name", LAZY)
def test_a_package_that_loads_its_names_on_first_use_lists_them_once_where_the_type_checker_sees_them(
    name: str,
) -> None:
    module = importlib.import_module(name)
    source = Path(module.__file__ or "").read_text(encoding="utf-8")
    tree = ast.parse(source)
    guarded = [
        alias.asname or alias.name
        for node in tree.body
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"
        for statement in node.body
        if isinstance(statement, ast.ImportFrom)
        for alias in statement.names
    ]
    assert guarded, "no name loads on first use"
    assert "__all__ =" not in source and "_LAZY" not in source  # the one list is the imports
    assert set(guarded) <= set(module.__all__) <= set(dir(module))
    assert list(module.__all__) == sorted(module.__all__, key=_isort_style)
    assert all(getattr(module, each) is not None for each in guarded)
    with pytest.raises(AttributeError):
        module.no_such_name  # noqa: B018


def test_importing_the_package_loads_none_of_its_parts() -> None:
    """`import specbridge` (which every part runs first) stays light: the names load on first use."""
    code = "import sys, specbridge; print(' '.join(sorted(sys.modules)))"
    # Without coverage's start-up hook (make coverage), which imports modules of its own.
    env = {name: value for name, value in os.environ.items() if not name.startswith("COVERAGE_")}
    loaded = set(
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
        ).stdout.split()
    )
    assert "specbridge._errors" in loaded
    assert loaded & {"specbridge.tools", "specbridge.config", "specbridge.document", "httpx"} == set()
    assert "ast" not in loaded  # the list of lazy names is read when a name is first asked for
