"""The pieces a team wires lint in with: the pre-commit hook and the composite GitHub Action in the
repository. Each is read as the tool reads it, and its commands are run here on real documents (the
parts that need GitHub itself, setup-python and the SARIF upload, are checked by their declaration)."""

from __future__ import annotations

import json
import os
import re
import shlex
import stat
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

from ._lint_helpers import document, operation

ROOT = Path(__file__).resolve().parents[2]
BIN = str(Path(sys.executable).parent)  # where the `specbridge` console script is installed
EXPRESSION = re.compile(r"^\$\{\{ inputs\.([\w-]+) \}\}$")


def write(path: Path, data: dict[str, Any]) -> str:
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return str(path)


@pytest.fixture
def documents(tmp_path: Path) -> dict[str, str]:
    body = {"required": True, "content": {"multipart/mixed": {"schema": {"type": "object"}}}}
    return {
        "clean": write(tmp_path / "clean.openapi.yaml", document({"/a": {"get": operation("listA")}})),
        "broken": write(
            tmp_path / "broken.openapi.yaml", document({"/b": {"post": operation("makeB", requestBody=body)}})
        ),
    }


def environment(**extra: str) -> dict[str, str]:
    return {**os.environ, "PATH": BIN + os.pathsep + os.environ.get("PATH", ""), **extra}


# -- pre-commit ------------------------------------------------------------------------------------


def hook() -> dict[str, Any]:
    [only] = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    return dict(only)


def test_the_pre_commit_hook_runs_the_installed_lint_command() -> None:
    declared = hook()
    assert declared["id"] == "specbridge-lint"
    assert declared["language"] == "python"  # pre-commit installs this repository with pip
    command = shlex.split(declared["entry"])
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert command[0] in scripts
    assert command[1:] == ["lint"]


@pytest.mark.parametrize(
    ("path", "matched"),
    [
        ("openapi.yaml", True),
        ("api/petstore.openapi.yml", True),
        ("specs/swagger.json", True),
        ("docs/openapi-v2.yaml", True),
        ("README.md", False),
        ("openapi.txt", False),
        ("openapi/README.yaml", False),
    ],
)
def test_the_pre_commit_hook_picks_api_documents_by_name(path: str, matched: bool) -> None:
    assert bool(re.search(hook()["files"], path)) is matched


def run_hook(*files: str) -> subprocess.CompletedProcess[str]:
    declared = hook()
    command = [*shlex.split(declared["entry"]), *declared.get("args", []), *files]
    return subprocess.run(
        command, env=environment(), capture_output=True, text=True, timeout=120, check=False
    )


def test_the_pre_commit_hook_passes_clean_documents_and_fails_an_error(documents: dict[str, str]) -> None:
    assert run_hook(documents["clean"]).returncode == 0
    failed = run_hook(documents["clean"], documents["broken"])
    assert failed.returncode == 1
    assert "[body-unsupported]" in failed.stdout


# -- the composite GitHub Action -------------------------------------------------------------------


def action() -> dict[str, Any]:
    return dict(yaml.safe_load((ROOT / "action.yml").read_text()))


def step(name: str) -> dict[str, Any]:
    return next(dict(entry) for entry in action()["runs"]["steps"] if entry.get("name") == name)


def step_env(entry: dict[str, Any], given: dict[str, str]) -> dict[str, str]:
    """The step's `env`, with each `${{ inputs.x }}` replaced the way the runner does it."""
    inputs = action()["inputs"]
    values: dict[str, str] = {}
    for key, value in entry.get("env", {}).items():
        match = EXPRESSION.match(str(value))
        if match is None:
            continue
        name = match.group(1)
        assert name in inputs, f"{key} reads an input the action does not declare: {name}"
        values[key] = given.get(name, str(inputs[name].get("default", "")))
    return values


def run_step(entry: dict[str, Any], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    assert entry["shell"] == "bash"
    return subprocess.run(
        ["bash", "-e", "-c", entry["run"]],
        env=environment(**env),
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def outputs(path: Path) -> dict[str, str]:
    return dict(line.split("=", 1) for line in path.read_text().splitlines())


def test_the_action_is_composite_and_uploads_sarif_with_codeql(tmp_path: Path) -> None:
    declared = action()
    assert declared["runs"]["using"] == "composite"
    assert "documents" in declared["inputs"] and declared["inputs"]["documents"]["required"] is True
    upload = step("Upload SARIF")
    assert upload["uses"].startswith("github/codeql-action/upload-sarif@")
    assert upload["with"]["sarif_file"] == "${{ inputs.sarif-file }}"
    assert "steps.lint.outputs.sarif == 'true'" in upload["if"]


def test_the_action_lints_every_document_into_one_sarif_report(
    tmp_path: Path, documents: dict[str, str]
) -> None:
    lint = step("Lint")
    github_output = tmp_path / "github-output"
    github_output.touch()
    given = {"documents": f"{documents['clean']}\n{documents['broken']}\n", "sarif-file": "out.sarif"}
    done = run_step(lint, {**step_env(lint, given), "GITHUB_OUTPUT": str(github_output)}, tmp_path)
    assert done.returncode == 0, done.stderr  # the status is reported, and the last step fails the job
    assert outputs(github_output) == {"exit-code": "1", "sarif": "true"}
    sarif = json.loads((tmp_path / "out.sarif").read_text())
    [run] = sarif["runs"]
    uris = {
        result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for result in run["results"]
    }
    assert uris == {"broken.openapi.yaml"}


def test_the_action_expands_globs_and_double_star_across_folders(tmp_path: Path) -> None:
    body = {"required": True, "content": {"multipart/mixed": {"schema": {"type": "object"}}}}
    broken = document({"/b": {"post": operation("makeB", requestBody=body)}})
    (tmp_path / "api" / "v2" / "deep").mkdir(parents=True)
    for name in ("api/a.openapi.yaml", "api/v2/deep/b.openapi.yaml", "api/notes.yaml"):
        write(tmp_path / name, broken)
    lint = step("Lint")
    github_output = tmp_path / "github-output"
    github_output.touch()
    given = {"documents": "api/**/*.openapi.yaml", "sarif-file": "out.sarif"}
    done = run_step(lint, {**step_env(lint, given), "GITHUB_OUTPUT": str(github_output)}, tmp_path)
    assert done.returncode == 0, done.stderr
    [run] = json.loads((tmp_path / "out.sarif").read_text())["runs"]
    uris = {
        result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for result in run["results"]
    }
    assert uris == {"api/a.openapi.yaml", "api/v2/deep/b.openapi.yaml"}


def test_a_glob_that_matches_nothing_is_reported_as_a_missing_document(tmp_path: Path) -> None:
    lint = step("Lint")
    github_output = tmp_path / "github-output"
    github_output.touch()
    given = {"documents": "nowhere/*.yaml", "sarif-file": "out.sarif"}
    done = run_step(lint, {**step_env(lint, given), "GITHUB_OUTPUT": str(github_output)}, tmp_path)
    assert outputs(github_output)["exit-code"] == "3"
    assert "nowhere/*.yaml" in done.stderr


def test_the_action_passes_clean_documents_and_fail_on_none_never_fails(
    tmp_path: Path, documents: dict[str, str]
) -> None:
    lint = step("Lint")
    for given, status in (
        ({"documents": documents["clean"]}, "0"),
        ({"documents": documents["broken"], "fail-on": "none"}, "0"),
    ):
        github_output = tmp_path / "github-output"
        github_output.write_text("")
        done = run_step(lint, {**step_env(lint, given), "GITHUB_OUTPUT": str(github_output)}, tmp_path)
        assert done.returncode == 0, done.stderr
        assert outputs(github_output)["exit-code"] == status


def test_the_action_fails_the_job_with_the_lint_status(tmp_path: Path) -> None:
    failing = step("Fail on findings")
    assert failing["if"] == "${{ steps.lint.outputs.exit-code != '0' }}"
    done = run_step(failing, {"STATUS": "1"}, tmp_path)
    assert done.returncode == 1
    assert done.stdout.startswith("::error title=specbridge lint::")


@pytest.mark.parametrize(
    ("version", "installed"), [("", "/checkout/of/the/action"), ("==0.1.0", "specbridge==0.1.0")]
)
def test_the_action_installs_its_own_checkout_unless_a_version_is_given(
    tmp_path: Path, version: str, installed: str
) -> None:
    """`python` is a stand-in that records its arguments: nothing is downloaded here."""
    fake = tmp_path / "bin" / "python"
    fake.parent.mkdir()
    fake.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > {tmp_path / "argv"}\n')
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    install = step("Install specbridge")
    env = {"SPECBRIDGE_VERSION": version, "ACTION_PATH": "/checkout/of/the/action"}
    assert set(step_env(install, {"version": version})) == {"SPECBRIDGE_VERSION"}
    assert install["env"]["ACTION_PATH"] == "${{ github.action_path }}"
    done = subprocess.run(
        ["bash", "-e", "-c", install["run"]],
        env={**os.environ, **env, "PATH": f"{fake.parent}{os.pathsep}{os.environ['PATH']}"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    argv = (tmp_path / "argv").read_text().split()
    assert argv[:3] == ["-m", "pip", "install"]
    assert argv[-1] == installed
