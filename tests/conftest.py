"""Fixtures every test folder shares: the real loopback upstream (tests/support/upstream.py), an API
credential in the environment as a config would name it, and a real authorization server (glewlwyd)."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from tests.support.audit import auditing_to
from tests.support.glewlwyd import Glewlwyd
from tests.support.glewlwyd import missing as glewlwyd_missing
from tests.support.light import build, install_light
from tests.support.required import required_failure
from tests.support.secret import SECRET
from tests.support.upstream import Upstream

# CI runs a suite as a background job of a non-interactive shell, which starts it with SIGINT ignored,
# and an ignored signal stays ignored across exec: every `specbridge serve` the tests start would ignore
# a test's Ctrl-C as no person's terminal does. A handled signal is reset to the default at exec.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# Hypothesis times each example (its deadline, its `too_slow` health check): on a machine running two
# suites at once (CI: `make test` beside `make coverage`) a slow second is the machine's, not the code's,
# and the suite asserts on no timing. A test's own `@settings` inherit this.
settings.register_profile("specbridge", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("specbridge")


@pytest.fixture(scope="session", autouse=True)
def user_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The user's cache folder (`$XDG_CACHE_HOME`: kept conversions, stdio answers, tool vectors) of
    this run and the processes it starts: one of its own, never the home folder's."""
    folder = tmp_path_factory.mktemp("user-cache")
    before = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(folder)
    yield folder
    if before is None:
        os.environ.pop("XDG_CACHE_HOME", None)
    else:
        os.environ["XDG_CACHE_HOME"] = before


@pytest.fixture
def upstream() -> Iterator[Upstream]:
    """An HTTP upstream on loopback, recording every request; stopped after the test."""
    with Upstream() as server:
        yield server


@pytest.fixture
def secret_env(monkeypatch: pytest.MonkeyPatch) -> str:
    """`SECRET` in the environment; returns the config's reference to it."""
    monkeypatch.setenv("SPECBRIDGE_TEST_SECRET", SECRET)
    return "env:SPECBRIDGE_TEST_SECRET"


@pytest.fixture(scope="session")
def glewlwyd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Glewlwyd]:
    """Debian's glewlwyd, a real OAuth 2.1 / OpenID Connect server on loopback (tests/support/glewlwyd.py),
    one for the whole run; skipped, saying why, where it is not installed."""
    reason = glewlwyd_missing()
    if reason is not None:
        pytest.skip(reason)
    with Glewlwyd(tmp_path_factory.mktemp("glewlwyd")) as server:
        yield server


@pytest.fixture
def audit_file(tmp_path: Path) -> Iterator[Path]:
    """The audit log written to a file of this test's own, for as long as the test runs."""
    with auditing_to(tmp_path / "audit.jsonl") as path:
        yield path


@pytest.fixture(scope="session")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sdist and wheel as the release workflow builds them (tests/support/light.py), once a run."""
    return build(tmp_path_factory.mktemp("dist"))


@pytest.fixture(scope="session")
def light(dist: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`pip install specbridge` (the wheel, no extra) in a clean venv: the light form CI jobs get."""
    return install_light(dist, tmp_path_factory.mktemp("light") / "venv")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """On CI, a test skipped because a tool is missing (tests/support/required.py) fails instead."""
    outcome = yield
    report: pytest.TestReport = outcome.get_result()  # type: ignore[attr-defined]
    if report.skipped and isinstance(report.longrepr, tuple):
        failure = required_failure(str(report.longrepr[2]))
        if failure is not None:
            report.outcome = "failed"
            report.longrepr = failure
