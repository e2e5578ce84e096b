"""The repository's GitHub files are what GitHub accepts: the workflows and the Action are checked against
SchemaStore's schemas for them (as vendored by the `check-jsonschema` package, so no network is needed),
and CI runs `.ci/run` on pull requests and pushes."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml_rs

ROOT = Path(__file__).resolve().parents[1]
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))


def vendored(name: str) -> dict[str, Any]:
    text = (resources.files("check_jsonschema") / "builtin_schemas" / "vendor" / f"{name}.json").read_text()
    return dict(json.loads(text))


def read(path: Path) -> dict[str, Any]:
    # YAML 1.2, as GitHub reads it: the key `on` stays a string (YAML 1.1 would make it true).
    return dict(yaml_rs.loads(path.read_text(encoding="utf-8")))


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda path: path.name)
def test_each_workflow_is_valid_for_github(path: Path) -> None:
    jsonschema.validate(read(path), vendored("github-workflows"))


def test_the_action_is_valid_for_github() -> None:
    jsonschema.validate(read(ROOT / "action.yml"), vendored("github-actions"))


def test_the_schema_check_can_fail() -> None:
    broken = read(ROOT / ".github" / "workflows" / "ci.yml")
    broken["jobs"]["test"]["runs-on"] = 3
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, vendored("github-workflows"))


def test_ci_runs_the_ci_script_on_pull_requests_and_pushes() -> None:
    declared = read(ROOT / ".github" / "workflows" / "ci.yml")
    assert {"pull_request", "push"} <= set(declared["on"])
    [job] = declared["jobs"].values()
    assert any(step.get("run", "").strip() == "bash .ci/run" for step in job["steps"])
    assert {"postgres", "redis"} <= set(job["services"])  # the store tests' real servers
