"""ARCHITECTURE.md's habit, checked on the source: a module holds one idea, and no module of `src/` runs
past 400 lines (past that it has always held two; split it by idea, as `call/_url` and `_build` were)."""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "specbridge"
MAX_LINES = 400


def test_no_module_is_longer_than_400_lines() -> None:
    long = {
        str(path.relative_to(PACKAGE)): lines
        for path in sorted(PACKAGE.rglob("*.py"))
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}, f"split these modules by idea: {long}"
