"""`specbridge lint`: exit statuses, --fail-on, config severities and ignores, x-specbridge-ignore."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from click.testing import CliRunner

from specbridge.cli import EXIT_FINDINGS, EXIT_OK, EXIT_UNREADABLE, app

from ._lint_helpers import document, operation

ARTICLE = str(Path(__file__).parent / "fixtures" / "article.yaml")


def lint_cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["lint", *args])
    return result.exit_code, result.output


def write_config(tmp_path: Path, lint_settings: object, spec: str = ARTICLE) -> str:
    path = tmp_path / "specbridge.yaml"
    path.write_text(yaml.safe_dump({"apis": {"shop": {"spec": spec}}, "lint": lint_settings}))
    return str(path)


def findings(output: str) -> list[dict[str, object]]:
    return list(json.loads(output)["findings"])


def test_without_strict_findings_exit_zero() -> None:
    assert lint_cli(ARTICLE)[0] == EXIT_OK


def test_with_strict_a_warning_exits_one() -> None:
    assert lint_cli(ARTICLE, "--strict")[0] == EXIT_FINDINGS


def test_with_strict_and_fail_on_error_warnings_alone_exit_zero() -> None:
    assert lint_cli(ARTICLE, "--strict", "--fail-on", "error")[0] == EXIT_OK


def test_a_clean_document_passes_strict_at_info(tmp_path: Path) -> None:
    spec = tmp_path / "clean.yaml"
    spec.write_text(yaml.safe_dump(document({"/things": {"get": operation("listThings")}})))
    code, output = lint_cli(str(spec), "--strict", "--fail-on", "info")
    assert code == EXIT_OK, output
    assert "1 tool, 0 findings" in output


def test_a_missing_document_exits_three(tmp_path: Path) -> None:
    code, output = lint_cli(str(tmp_path / "absent.yaml"))
    assert code == EXIT_UNREADABLE
    assert "document-not-found" in output


def test_an_unreadable_config_exits_three(tmp_path: Path) -> None:
    bad = tmp_path / "specbridge.yaml"
    bad.write_text("apis: [unclosed")
    assert lint_cli(ARTICLE, "--config", str(bad))[0] == EXIT_UNREADABLE


def test_a_config_naming_an_unknown_rule_exits_three_and_lists_the_rules(tmp_path: Path) -> None:
    code, output = lint_cli(ARTICLE, "--config", write_config(tmp_path, {"disable": ["no-such-rule"]}))
    assert code == EXIT_UNREADABLE
    assert "lint.disable[0]" in output
    assert "collision" in output


def test_a_config_severity_outside_the_levels_names_the_key(tmp_path: Path) -> None:
    code, output = lint_cli(ARTICLE, "--config", write_config(tmp_path, {"severity": {"width": "fatal"}}))
    assert code == EXIT_UNREADABLE
    assert "lint.severity.width" in output
    assert "error, warning, info" in output


def test_a_config_severity_raises_a_rule_to_error(tmp_path: Path) -> None:
    config = write_config(tmp_path, {"severity": {"width": "error"}})
    code, output = lint_cli(ARTICLE, "--format", "json", "--config", config, "--strict", "--fail-on", "error")
    assert code == EXIT_FINDINGS
    assert {f["severity"] for f in findings(output) if f["rule"] == "width"} == {"error"}


def test_a_disabled_rule_and_an_off_severity_report_nothing(tmp_path: Path) -> None:
    config = write_config(tmp_path, {"disable": ["width"], "severity": {"depth": "off"}})
    _code, output = lint_cli(ARTICLE, "--format", "json", "--config", config)
    assert {f["rule"] for f in findings(output)}.isdisjoint({"width", "depth"})


def test_config_ignores_match_by_rule_tool_and_pointer(tmp_path: Path) -> None:
    config = write_config(
        tmp_path,
        {
            "ignore": [
                {"rule": "collision", "tool": "users.update"},
                {"rule": "depth", "pointer": "/paths/~1orders~1{order}"},
                {"rule": "width", "tool": "some_other_tool"},
            ]
        },
    )
    _code, output = lint_cli(ARTICLE, "--format", "json", "--config", config)
    rules = {f["rule"] for f in findings(output)}
    assert "collision" not in rules
    assert "depth" not in rules
    assert "width" in rules
    assert json.loads(output)["summary"]["ignored"] == 2


def test_x_specbridge_ignore_on_an_operation_drops_its_findings(tmp_path: Path) -> None:
    spec = tmp_path / "api.yaml"
    op = operation(None, **{"x-specbridge-ignore": ["name-missing"]})
    spec.write_text(yaml.safe_dump(document({"/search": {"get": op}})))
    _code, output = lint_cli(str(spec), "--format", "json")
    assert "name-missing" not in {f["rule"] for f in findings(output)}


def test_x_specbridge_ignore_on_a_referenced_schema_drops_its_findings(tmp_path: Path) -> None:
    deep: dict[str, object] = {"type": "string"}
    for _ in range(7):
        deep = {"type": "object", "properties": {"inner": deep}}
    body = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Deep"}}}}
    data = document({"/deep": {"post": operation("makeDeep", requestBody=body)}})
    spec = tmp_path / "api.yaml"
    spec.write_text(yaml.safe_dump(data | {"components": {"schemas": {"Deep": deep}}}))
    assert "depth" in {f["rule"] for f in findings(lint_cli(str(spec), "--format", "json")[1])}
    data["components"] = {"schemas": {"Deep": {**deep, "x-specbridge-ignore": ["depth"]}}}
    spec.write_text(yaml.safe_dump(data))
    assert "depth" not in {f["rule"] for f in findings(lint_cli(str(spec), "--format", "json")[1])}


def test_requires_approval_in_the_config_guards_a_delete(tmp_path: Path) -> None:
    spec = tmp_path / "api.yaml"
    spec.write_text(yaml.safe_dump(document({"/things/{id}": {"delete": operation("deleteThing")}})))
    config = tmp_path / "specbridge.yaml"
    config.write_text(
        yaml.safe_dump(
            {"apis": {"api": {"spec": str(spec), "tools": {"deleteThing": {"requires_approval": True}}}}}
        )
    )
    assert "destructive-unguarded" in lint_cli(str(spec))[1]
    assert "destructive-unguarded" not in lint_cli(str(spec), "--config", str(config))[1]


def test_a_config_with_only_lint_settings_is_enough_for_lint(tmp_path: Path) -> None:
    path = tmp_path / "specbridge.yaml"
    path.write_text(yaml.safe_dump({"lint": {"disable": ["width"]}}))
    status, output = lint_cli(ARTICLE, "--config", str(path), "--format", "json")
    assert status == EXIT_OK
    assert "width" not in {finding["rule"] for finding in findings(output)}
