"""Every error code is documented in docs/errors.md, and every documented code exists."""

from __future__ import annotations

import re
from pathlib import Path

from specbridge import ErrorCode

ERRORS_DOC = Path(__file__).resolve().parents[1] / "docs" / "errors.md"


def test_every_error_code_has_a_heading_in_docs_errors_md_and_vice_versa() -> None:
    documented = set(re.findall(r"^### `([^`]+)`\s*$", ERRORS_DOC.read_text(encoding="utf-8"), re.MULTILINE))
    codes = {code.value for code in ErrorCode}
    assert sorted(codes - documented) == [], "codes missing from docs/errors.md"
    assert sorted(documented - codes) == [], "docs/errors.md lists codes ErrorCode does not have"
