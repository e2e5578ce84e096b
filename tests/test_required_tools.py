"""A suite whose tool is missing skips on a developer's machine and fails on CI, naming the tool
(tests/support/required.py; `.ci/run` sets SPECBRIDGE_REQUIRE_TOOLS=1)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.required import REQUIRE_VARIABLE, lacking, required_failure

ROOT = Path(__file__).resolve().parent.parent
BROWSER_TESTS = "tests/files/test_routes_browser.py"


def run_without_chromium(*, required: bool) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SPECBRIDGE_TEST_CHROMIUM": "/nonexistent/chromium"}
    env.pop(REQUIRE_VARIABLE, None)
    if required:
        env[REQUIRE_VARIABLE] = "1"
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rfEs", BROWSER_TESTS],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_a_missing_tool_only_skips_its_tests_on_a_developers_machine() -> None:
    run = run_without_chromium(required=False)
    assert run.returncode == 0, run.stdout[-2000:]
    assert "missing tool chromium" in run.stdout
    assert " failed" not in run.stdout


def test_a_missing_tool_fails_the_run_on_ci_naming_the_tool() -> None:
    run = run_without_chromium(required=True)
    assert run.returncode == 1, run.stdout[-2000:]
    assert "required on CI" in run.stdout
    assert "missing tool chromium" in run.stdout


def test_a_skip_for_another_reason_stays_a_skip_on_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(REQUIRE_VARIABLE, "1")
    assert required_failure("the corpus folder is absent") is None
    assert required_failure(lacking("nginx", "not installed")) == (
        f"required on CI ({REQUIRE_VARIABLE}=1): missing tool nginx: not installed"
    )
