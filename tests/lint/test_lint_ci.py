"""`specbridge lint` in CI: fails on errors like Spectral and Redocly, several documents per run, advice
that never fails a build, collision fixes that keep the documentation's names."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner, Result

from specbridge.cli import EXIT_FINDINGS, EXIT_OK, EXIT_UNREADABLE, app

from ._lint_helpers import document, json_body, only, operation, run

ARTICLE = str(Path(__file__).parent / "fixtures" / "article.yaml")


def lint_cli(*args: str) -> Result:
    return CliRunner().invoke(app, ["lint", *args])


def write(tmp_path: Path, name: str, data: dict[str, Any]) -> str:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return str(path)


def with_error(tmp_path: Path, name: str = "broken.yaml") -> str:
    """A document whose only finding is an error: a body the gateway cannot send."""
    body = {"required": True, "content": {"multipart/mixed": {"schema": {"type": "object"}}}}
    return write(tmp_path, name, document({"/things": {"post": operation("makeThing", requestBody=body)}}))


def clean(tmp_path: Path, name: str = "clean.yaml") -> str:
    return write(tmp_path, name, document({"/things": {"get": operation("listThings")}}))


def with_delete(tmp_path: Path) -> str:
    return write(tmp_path, "delete.yaml", document({"/things/{id}": {"delete": operation("deleteThing")}}))


def many_tools(tmp_path: Path, count: int = 45) -> str:
    paths = {f"/things{index}": {"get": operation(f"listThings{index}")} for index in range(count)}
    return write(tmp_path, "big.yaml", document(paths))


def config(tmp_path: Path, data: dict[str, Any]) -> str:
    path = tmp_path / "specbridge.yaml"
    path.write_text(yaml.safe_dump(data))
    return str(path)


def test_an_error_finding_fails_the_run_without_any_flag(tmp_path: Path) -> None:
    result = lint_cli(with_error(tmp_path))
    assert result.exit_code == EXIT_FINDINGS, result.output
    assert "[body-unsupported]" in result.output


def test_warnings_alone_pass_without_strict_and_fail_with_it() -> None:
    assert lint_cli(ARTICLE).exit_code == EXIT_OK
    assert lint_cli(ARTICLE, "--strict").exit_code == EXIT_FINDINGS
    assert lint_cli(ARTICLE, "--fail-on", "warning").exit_code == EXIT_FINDINGS


def test_fail_on_none_never_fails_on_findings(tmp_path: Path) -> None:
    assert lint_cli(with_error(tmp_path), "--fail-on", "none").exit_code == EXIT_OK


def test_several_documents_are_linted_in_one_run_and_the_worst_decides(tmp_path: Path) -> None:
    broken, fine = with_error(tmp_path), clean(tmp_path)
    result = lint_cli(fine, broken)
    assert result.exit_code == EXIT_FINDINGS
    assert f"specbridge lint {fine}" in result.output
    assert f"specbridge lint {broken}" in result.output
    assert result.output.rstrip().endswith("2 documents, 1 finding (1 error, 0 warnings, 0 info)")
    assert lint_cli(fine, clean(tmp_path, "other.yaml")).exit_code == EXIT_OK


def test_an_unreadable_document_among_several_exits_three_after_linting_the_others(tmp_path: Path) -> None:
    fine = clean(tmp_path)
    result = lint_cli(str(tmp_path / "absent.yaml"), fine)
    assert result.exit_code == EXIT_UNREADABLE
    assert "error [document-not-found]" in result.stderr
    assert f"specbridge lint {fine}" in result.stdout


def test_several_documents_as_json_are_a_list_and_as_sarif_one_run(tmp_path: Path) -> None:
    broken, fine = with_error(tmp_path), clean(tmp_path)
    listed = json.loads(lint_cli(fine, broken, "--format", "json", "--fail-on", "none").stdout)
    assert [entry["source"] for entry in listed] == [fine, broken]
    sarif = json.loads(lint_cli(fine, broken, "--format", "sarif", "--fail-on", "none").stdout)
    [only_run] = sarif["runs"]
    [result] = only_run["results"]
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].endswith("broken.yaml")


def test_a_delete_without_approval_is_advice_that_never_fails(tmp_path: Path) -> None:
    spec = with_delete(tmp_path)
    result = lint_cli(spec, "--strict", "--fail-on", "info")
    assert result.exit_code == EXIT_OK, result.output
    assert "warning (advice) [destructive-unguarded]" in result.output
    [finding] = json.loads(lint_cli(spec, "--format", "json").stdout)["findings"]
    assert finding["rule"] == "destructive-unguarded" and finding["advice"] is True


def test_a_config_that_names_destructive_unguarded_makes_it_fail(tmp_path: Path) -> None:
    spec = with_delete(tmp_path)
    asked = config(tmp_path, {"lint": {"severity": {"destructive-unguarded": "error"}}})
    result = lint_cli(spec, "--config", asked)
    assert result.exit_code == EXIT_FINDINGS
    assert "error [destructive-unguarded]" in result.output


def test_catalogue_size_is_advice_while_search_mode_will_handle_it(tmp_path: Path) -> None:
    spec = many_tools(tmp_path)
    result = lint_cli(spec, "--strict")
    assert "warning (advice) [catalogue-size]" in result.output
    assert result.exit_code == EXIT_OK, result.output


def test_catalogue_size_fails_when_the_api_is_served_with_search_off(tmp_path: Path) -> None:
    spec = many_tools(tmp_path)
    served = config(tmp_path, {"apis": {"big": {"spec": spec, "search": "off"}}})
    result = lint_cli(spec, "--strict", "--config", served)
    assert "warning [catalogue-size]" in result.output
    assert result.exit_code == EXIT_FINDINGS


def put_with(path_name: str, body_name: str) -> dict[str, Any]:
    put = operation(
        "updateUser",
        parameters=[{"name": path_name, "in": "path", "required": True, "schema": {"type": "string"}}],
        requestBody=json_body({"type": "object", "properties": {body_name: {"type": "string"}}}),
    )
    return document({f"/users/{{{path_name}}}": {"put": put}})


@pytest.mark.parametrize(
    ("name", "worse"),
    [("username", "userId"), ("userId", "userKey"), ("petId", "userKey"), ("owner", "userId")],
)
def test_a_collision_fix_never_renames_the_path_parameter_to_a_worse_name(name: str, worse: str) -> None:
    [finding] = only(run(put_with(name, name)), "collision")
    assert worse not in finding.fix
    assert "path parameter to" not in finding.fix
    assert f"Drop `{name}` from the body" in finding.fix


def test_a_collision_fix_names_a_new_value_in_the_names_own_style() -> None:
    assert "`new_username`" in only(run(put_with("username", "username")), "collision")[0].fix
    assert "`newUserName`" in only(run(put_with("userName", "userName")), "collision")[0].fix


def test_with_several_documents_each_uses_the_api_the_config_serves_it_as(tmp_path: Path) -> None:
    guarded, other = with_delete(tmp_path), clean(tmp_path)
    served = config(
        tmp_path,
        {
            "apis": {
                "a": {"spec": guarded, "tools": {"deleteThing": {"requires_approval": True}}},
                "b": {"spec": many_tools(tmp_path)},
            }
        },
    )
    result = lint_cli(guarded, other, "--config", served)
    assert result.exit_code == EXIT_OK, result.output
    assert "destructive-unguarded" not in result.output
