"""`specbridge lint`: colour on a terminal only, and a baseline that lets `--strict` be switched on for an
API that already has findings."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from specbridge.cli import app

EXAMPLE = str(Path(__file__).resolve().parents[2] / "src" / "specbridge" / "examples" / "shop.openapi.yaml")
ESC = "\x1b["


def lint(*words: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["lint", *words], env=env)
    return result.exit_code, result.stdout, result.stderr


def test_the_text_report_has_no_colour_when_piped() -> None:
    _, stdout, _ = lint(EXAMPLE, env={"NO_COLOR": None, "FORCE_COLOR": None})  # type: ignore[dict-item]
    assert "[description-restates-name]" in stdout
    assert ESC not in stdout


def test_force_color_colours_the_severities_and_the_summary() -> None:
    _, stdout, _ = lint(EXAMPLE, env={"FORCE_COLOR": "1", "NO_COLOR": None})  # type: ignore[dict-item]
    assert f"{ESC}33mwarning{ESC}0m" in stdout
    assert f"{ESC}36minfo{ESC}0m" in stdout
    assert stdout.rstrip().splitlines()[-1].startswith(f"{ESC}1m9 tools, 8 findings")


@pytest.mark.parametrize("fmt", ["json", "sarif", "github", "markdown"])
def test_other_formats_are_never_coloured(fmt: str) -> None:
    _, stdout, _ = lint(EXAMPLE, "--format", fmt, env={"FORCE_COLOR": "1"})
    assert ESC not in stdout


def test_a_baseline_holds_todays_findings_so_strict_passes_on_them(tmp_path: Path) -> None:
    baseline = tmp_path / "specbridge-baseline.yaml"
    code, stdout, stderr = lint(EXAMPLE, "--generate-baseline", str(baseline))
    assert code == 0 and stdout == ""
    assert stderr.startswith(f"8 findings written to {baseline} as lint.ignore entries")
    entries = yaml.safe_load(baseline.read_text())["lint"]["ignore"]
    assert len(entries) == 8
    assert {"rule": "name-charset", "tool": "products.update"}.items() <= entries[1].items()
    code, stdout, _ = lint(EXAMPLE, "--config", str(baseline), "--fail-on", "info")
    assert code == 0
    assert stdout.rstrip().endswith("0 findings (0 errors, 0 warnings, 0 info); 8 ignored")


def test_a_finding_the_baseline_does_not_hold_still_fails(tmp_path: Path) -> None:
    baseline = tmp_path / "baseline.yaml"
    lint(EXAMPLE, "--generate-baseline", str(baseline))
    text = baseline.read_text().splitlines()
    kept = [line for line in text if "name-charset" not in line]
    baseline.write_text("\n".join(kept) + "\n")
    code, stdout, _ = lint(EXAMPLE, "--config", str(baseline), "--strict")
    assert code == 1
    assert "[name-charset] products.update" in stdout
