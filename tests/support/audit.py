"""The audit log pointed at a file for one test, and its lines read back."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from specbridge._audit import audit_to


@contextmanager
def auditing_to(path: Path) -> Iterator[Path]:
    audit_to(str(path))
    try:
        yield path
    finally:
        audit_to(None)


def audit_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
