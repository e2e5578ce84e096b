"""Every error code is documented in docs/errors.md (or errors-approvals-and-oauth.md, the codes of
approvals, the store and OAuth), and every documented code exists."""

from __future__ import annotations

import re
from pathlib import Path

from specbridge import ErrorCode

ERRORS_DOCS = sorted((Path(__file__).resolve().parents[1] / "docs").glob("errors*.md"))


def test_every_error_code_has_a_heading_in_docs_errors_md_and_vice_versa() -> None:
    assert "errors.md" in [page.name for page in ERRORS_DOCS]
    documented = {
        code
        for page in ERRORS_DOCS
        for code in re.findall(r"^### `([^`]+)`\s*$", page.read_text(encoding="utf-8"), re.MULTILINE)
    }
    codes = {code.value for code in ErrorCode}
    assert sorted(codes - documented) == [], "codes missing from docs/errors*.md"
    assert sorted(documented - codes) == [], "docs/errors*.md lists codes ErrorCode does not have"
