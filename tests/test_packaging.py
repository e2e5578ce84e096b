"""The package is publishable: the sdist and wheel build and pass `twine check`, the wheel carries what
the code reads at run time, and the release workflow would publish them on a version tag."""

from __future__ import annotations

import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW = ROOT / ".github" / "workflows" / "release.yml"


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Built as the release workflow builds them, from a copy of the sources (no download: the
    project's own dev environment provides the build backend)."""
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return out


def version() -> str:
    return str(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"])


def test_the_sdist_and_wheel_pass_twine_check(dist: Path) -> None:
    files = sorted(path.name for path in dist.iterdir())
    assert files == [f"specbridge-{version()}-py3-none-any.whl", f"specbridge-{version()}.tar.gz"]
    checked = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", *map(str, dist.iterdir())],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_the_wheel_carries_the_type_marker_the_example_and_the_command(dist: Path) -> None:
    with zipfile.ZipFile(next(dist.glob("*.whl"))) as wheel:
        names = set(wheel.namelist())
        entry_points = wheel.read(f"specbridge-{version()}.dist-info/entry_points.txt").decode()
        metadata = wheel.read(f"specbridge-{version()}.dist-info/METADATA").decode()
    assert {"specbridge/py.typed", "specbridge/examples/shop.openapi.yaml"} <= names
    assert "specbridge = specbridge.cli:main" in entry_points
    assert "License-Expression: Apache-2.0" in metadata
    assert "Description-Content-Type: text/markdown" in metadata
    assert not any(name.startswith("tests/") for name in names)


def workflow() -> dict[Any, Any]:
    return dict(yaml.safe_load(WORKFLOW.read_text()))


def test_the_release_workflow_publishes_on_a_version_tag_with_trusted_publishing() -> None:
    declared = workflow()
    # YAML 1.1 reads the key `on` as True.
    trigger = declared.get("on", declared.get(True))
    assert trigger == {"push": {"tags": ["v*"]}}
    publish = declared["jobs"]["publish"]
    assert publish["needs"] == "build"
    assert publish["permissions"] == {"id-token": "write"}
    assert publish["environment"]["name"] == "pypi"
    assert any(step.get("uses", "").startswith("pypa/gh-action-pypi-publish@") for step in publish["steps"])
    assert not any("password" in step.get("with", {}) for step in publish["steps"])  # no stored token


def test_the_release_workflow_builds_and_checks_what_this_test_checks() -> None:
    build = workflow()["jobs"]["build"]
    [run] = [
        step["run"] for step in build["steps"] if step.get("name") == "Build and check the sdist and wheel"
    ]
    assert "python -m build" in run
    assert "twine check --strict dist/*" in run


@pytest.mark.parametrize(("tag", "accepted"), [(f"v{version()}", True), ("v999.0.0", False)])
def test_the_release_workflow_refuses_a_tag_that_is_not_the_packages_version(
    tag: str, accepted: bool
) -> None:
    build = workflow()["jobs"]["build"]
    [step] = [step for step in build["steps"] if step.get("name") == "The tag names the package's version"]
    done = subprocess.run(
        ["bash", "-e", "-c", step["run"].replace("python -c", f"{sys.executable} -c")],
        cwd=ROOT,
        env={"GITHUB_REF_NAME": tag, "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (done.returncode == 0) is accepted, done.stdout + done.stderr
