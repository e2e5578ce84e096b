"""The package as it is published: the sdist and wheel built as the release workflow builds them, and the
light form (`pip install specbridge`, the wheel without an extra) in a clean venv, with a way to run its
`specbridge` there. Shared by tests/test_packaging.py and tests/docs (the light form's command list)."""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import subprocess
import sys
import tempfile
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LOCK = Path(tempfile.gettempdir()) / f"specbridge-build-{hashlib.sha256(bytes(ROOT)).hexdigest()[:12]}.lock"


def build(out: Path) -> Path:
    """The sdist and wheel in `out`, from a copy of the sources (no download: the project's own dev
    environment provides the build backend). One build at a time in the checkout: the sdist step writes
    its `build/` and `src/*.egg-info`, and the suite's workers (and CI's two Pythons) each build."""
    with open(LOCK, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        subprocess.run(
            [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(ROOT)],
            capture_output=True,
            text=True,
            timeout=300,
            check=True,
        )
    return out


def install_light(dist: Path, home: Path) -> Path:
    """The wheel with no extra in a clean venv at `home`, its packages from the machine's pip configuration
    (its cache and indexes); the test is skipped, saying why, when they cannot be fetched."""
    venv.EnvBuilder(with_pip=True, clear=True).create(home)
    installed = subprocess.run(
        [str(home / "bin" / "python"), "-m", "pip", "install", "--disable-pip-version-check", "-q",
         str(next(dist.glob("*.whl")))],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    if installed.returncode != 0 and re.search(
        r"Could not find a version|NewConnectionError|Temporary failure in name resolution|No matching "
        r"distribution",
        installed.stdout + installed.stderr,
    ):
        pytest.skip(f"the light install's dependencies cannot be fetched here: {installed.stderr[-300:]}")
    assert installed.returncode == 0, installed.stdout + installed.stderr
    return home


def run_light(
    home: Path, *words: str, env: dict[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """`specbridge WORDS` of the light venv, in an environment without this interpreter's own settings."""
    clean = {key: value for key, value in os.environ.items() if not key.startswith(("PYTHON", "VIRTUAL_ENV"))}
    return subprocess.run(
        [str(home / "bin" / "specbridge"), *words],
        capture_output=True, text=True, timeout=120, check=False, env={**clean, **(env or {})},
        cwd=cwd or home,
    )  # fmt: skip
