"""Every fenced Python block of the docs compiles and runs in a folder holding the `openapi.yaml` it
names (the example shop's document). A block that is a fragment of a larger program (it uses names
its reader has) is listed in `FRAGMENTS` with what it lacks; its imports still run."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest

from tests.support.examples import example_spec_path

from . import _reading

FRAGMENTS = {
    "docs/store.md": "runs inside your program: config_folder, api, tool, client, arguments, bound and send are yours",
}


SCRIPTS = "docs/code-mode.md"  # its Python blocks are code mode's scripts: tests/docs/test_code_mode_page.py


def snippets() -> list[_reading.Block]:
    return [
        block
        for block in _reading.blocks()
        if block.info in ("python", "py") and str(block.page.relative_to(_reading.ROOT)) != SCRIPTS
    ]


@pytest.mark.parametrize("block", snippets(), ids=lambda block: _reading.where(block.page, block.line))
def test_a_python_block_of_the_docs_runs(
    block: _reading.Block, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copyfile(example_spec_path(), tmp_path / "openapi.yaml")
    monkeypatch.chdir(tmp_path)
    tree = ast.parse(block.text, filename=_reading.where(block.page, block.line))
    if str(block.page.relative_to(_reading.ROOT)) in FRAGMENTS:
        tree.body = [node for node in tree.body if isinstance(node, ast.Import | ast.ImportFrom)]
        assert tree.body, "a fragment without imports: nothing of it can be checked"
    exec(compile(tree, _reading.where(block.page, block.line), "exec"), {})


def test_every_fragment_is_still_in_the_docs() -> None:
    pages = {str(block.page.relative_to(_reading.ROOT)) for block in snippets()}
    assert set(FRAGMENTS) <= pages
