"""The tools some suites need beyond Python packages: Chromium, glewlwyd, HAProxy, nginx, Node 22, and
the PostgreSQL and Redis servers. On a developer's machine a missing one skips its tests, saying why.
On CI (`.ci/run` sets `SPECBRIDGE_REQUIRE_TOOLS=1`) the same skip fails the test, naming the tool, so
a whole suite cannot go quiet because an install failed (tests/conftest.py turns them).

    reason = lacking("chromium", f"no Chromium at {path} (apt-get install chromium)")
    pytest.skip(reason)                      # skipped here, failed on CI
"""

from __future__ import annotations

import os

MARK = "missing tool "  # every reason `lacking` makes starts with it; the hook looks for nothing else
REQUIRE_VARIABLE = "SPECBRIDGE_REQUIRE_TOOLS"


def lacking(tool: str, why: str) -> str:
    """The skip reason for a test that cannot run because `tool` is missing here."""
    return f"{MARK}{tool}: {why}"


def tools_required() -> bool:
    """Whether a missing tool fails its tests instead of skipping them (CI)."""
    return os.environ.get(REQUIRE_VARIABLE) == "1"


def required_failure(reason: str) -> str | None:
    """The failure a skip with `reason` becomes where tools are required, or None (it stays a skip)."""
    if not tools_required() or MARK not in reason:
        return None
    return f"required on CI ({REQUIRE_VARIABLE}=1): {reason[reason.index(MARK) :]}"
