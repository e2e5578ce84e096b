"""The package is publishable: the sdist and wheel build and pass `twine check`, the wheel carries what
the code reads at run time, the light install (`pip install specbridge`) lints without the gateway,
and the release workflow would publish them on a version tag."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support.light import run_light

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW = ROOT / ".github" / "workflows" / "release.yml"


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


def _tracked(folder: str) -> set[str]:
    listed = subprocess.run(
        ["git", "ls-files", folder], cwd=ROOT, capture_output=True, text=True, timeout=60, check=False
    )
    if listed.returncode != 0:
        pytest.skip("not a git checkout: the tracked files cannot be listed")
    return {line for line in listed.stdout.splitlines() if (ROOT / line).is_file()}


def test_the_sdist_ships_the_whole_test_tree_and_the_docs(dist: Path) -> None:
    with tarfile.open(next(dist.glob("*.tar.gz"))) as sdist:
        prefix = f"specbridge-{version()}/"
        names = {name.removeprefix(prefix) for name in sdist.getnames()}
    wanted = _tracked("tests") | _tracked("docs") | _tracked("bench/search")
    assert wanted, "nothing tracked under tests/ and docs/"
    assert sorted(wanted - names) == []
    assert not any("__pycache__" in name or name.endswith(".pyc") for name in names)


LIGHT_LIMIT_BYTES = 30 * 1024 * 1024  # issue 23: `pip install specbridge` stays at most ~30 MB ...
LIGHT_LIMIT_PACKAGES = 15  # ... and ~15 packages


def _size(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


def _run(home: Path, *words: str) -> subprocess.CompletedProcess[str]:
    return run_light(home, *words)


def test_the_light_install_lints_the_example_document_without_the_gateway(light: Path) -> None:
    example = ROOT / "src" / "specbridge" / "examples" / "shop.openapi.yaml"
    done = _run(light, "lint", str(example), "--format", "json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["tools"] == 9 and report["findings"]
    exported = _run(light, "tools", str(example), "--format", "openai")
    assert exported.returncode == 0 and "listProducts" in exported.stdout, exported.stderr
    imported = subprocess.run(
        [str(light / "bin" / "python"), "-c", "import mcp"], capture_output=True, timeout=60, check=False
    )
    assert imported.returncode != 0  # the MCP SDK is not part of the light form


@pytest.mark.parametrize("command", [["serve", "x.yaml"], ["call", "getOrder", "--config", "x.yaml"]])
def test_a_gateway_command_in_the_light_install_names_the_extra_to_install(
    light: Path, command: list[str]
) -> None:
    done = _run(light, *command)
    assert done.returncode == 3
    [line] = done.stderr.splitlines()
    assert line.startswith("error [extra-missing]: `specbridge ")
    assert line.endswith("pip install 'specbridge[gateway]'")


def test_the_light_install_stays_small(light: Path) -> None:
    [site] = (light / "lib").glob("python3*/site-packages")
    tooling = ("pip", "setuptools", "pkg_resources", "_distutils_hack", "distutils-precedence.pth")
    packages = [path for path in site.glob("*.dist-info") if not path.name.startswith(tooling)]
    size = sum(_size(path) for path in site.iterdir() if not path.name.startswith(tooling) and path.is_dir())
    assert len(packages) <= LIGHT_LIMIT_PACKAGES, sorted(path.name for path in packages)
    assert size <= LIGHT_LIMIT_BYTES, f"{size / 2**20:.1f} MB installed"


def test_the_readme_links_are_absolute_so_they_work_on_the_package_index() -> None:
    targets = re.findall(r"\]\(([^)\s]+)\)", (ROOT / "README.md").read_text(encoding="utf-8"))
    assert targets
    assert [target for target in targets if not target.startswith(("https://", "#"))] == []


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
