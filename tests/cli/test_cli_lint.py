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


CONFIG = f"""# the team's config
apis:
  shop:
    spec: {EXAMPLE}   # the document
    base_url: https://api.example.com/v1
clients:
  bot: {{key_sha256: "{"a" * 64}"}}
lint:
  severity: {{width: error}}
  ignore:
    - {{rule: name-charset, tool: products.update}}   # known since March
limits: {{max_depth: 40}}
"""


def test_a_baseline_into_the_config_it_reads_adds_entries_and_keeps_everything_else(tmp_path: Path) -> None:
    config = tmp_path / "specbridge.yaml"
    config.write_text(CONFIG)
    code, _, stderr = lint("--config", str(config), "--generate-baseline", str(config))
    assert code == 0, stderr
    assert "7 findings added to" in stderr and "other entries and settings are kept" in stderr
    after = config.read_text()
    assert after.startswith(CONFIG.partition("limits:")[0])  # every line, comments too, where it was
    assert after.endswith("limits: {max_depth: 40}\n")
    before, merged = yaml.safe_load(CONFIG), yaml.safe_load(after)
    assert {key: value for key, value in merged.items() if key != "lint"} == {
        key: value for key, value in before.items() if key != "lint"
    }
    assert merged["lint"]["severity"] == {"width": "error"}
    assert merged["lint"]["ignore"][0] == {"rule": "name-charset", "tool": "products.update"}
    assert len(merged["lint"]["ignore"]) == 8
    code, stdout, _ = lint("--config", str(config), "--fail-on", "info")
    assert code == 0 and stdout.rstrip().endswith("8 ignored")
    code, _, stderr = lint("--config", str(config), "--generate-baseline", str(config))  # again
    assert code == 0 and "nothing to add" in stderr and config.read_text() == after


def test_a_baseline_merges_into_an_earlier_one_keeping_its_entries(tmp_path: Path) -> None:
    earlier = tmp_path / "baseline.yaml"
    earlier.write_text('lint:\n  ignore:\n    - {rule: "some-old-rule", tool: "gone"}\n')
    code, _, stderr = lint(EXAMPLE, "--generate-baseline", str(earlier))
    assert code == 0, stderr
    entries = yaml.safe_load(earlier.read_text())["lint"]["ignore"]
    assert entries[0] == {"rule": "some-old-rule", "tool": "gone"} and len(entries) == 9


@pytest.mark.parametrize(
    ("content", "why"),
    [
        ("openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths: {}\n", "it is an OpenAPI document"),
        ('{"mcpServers": {"x": {"command": "y"}}}\n', "it is not a specbridge.yaml"),
        ("{not json\n", "it is not YAML or JSON"),
        ("lint: {ignore: []}\napis: {}\n", "not written in block style"),
        ("- a list\n", "it is not a specbridge.yaml"),
        ("lint: &shared\n  ignore: []\nstore: x\n", "not written in block style"),
    ],
)
def test_a_baseline_refuses_a_file_it_cannot_merge_into_and_leaves_it_unchanged(
    tmp_path: Path, content: str, why: str
) -> None:
    target = tmp_path / "target.yaml"
    target.write_text(content)
    code, stdout, stderr = lint(EXAMPLE, "--generate-baseline", str(target))
    assert code == 4 and stdout == ""
    assert stderr.startswith(f"error [output-unwritable]: refusing to write {target}: ")
    assert why in stderr and "nothing was written" in stderr
    assert target.read_text() == content


def test_a_baseline_never_replaces_the_document_being_linted(tmp_path: Path) -> None:
    copy = tmp_path / "shop.openapi.yaml"
    copy.write_bytes(Path(EXAMPLE).read_bytes())
    link = tmp_path / "link.yaml"
    link.symlink_to(copy)
    for target in (copy, link):
        code, _, stderr = lint(str(copy), "--generate-baseline", str(target))
        assert code == 4
        assert f"refusing to write {target}: it is {copy}, which this command reads" in stderr
    assert copy.read_bytes() == Path(EXAMPLE).read_bytes()


def test_a_baseline_in_a_missing_folder_is_output_unwritable(tmp_path: Path) -> None:
    code, _, stderr = lint(EXAMPLE, "--generate-baseline", str(tmp_path / "no" / "b.yaml"))
    assert code == 4
    assert (
        stderr.strip()
        == f"error [output-unwritable]: cannot write {tmp_path / 'no' / 'b.yaml'}: its folder does not exist"
    )
    assert not (tmp_path / "no").exists()


@pytest.mark.parametrize("words", [["-o", "report.txt"], ["--format", "json"]])
def test_a_baseline_with_a_report_option_is_a_usage_error(tmp_path: Path, words: list[str]) -> None:
    code, _, stderr = lint(EXAMPLE, "--generate-baseline", str(tmp_path / "b.yaml"), *words)
    assert code == 2 and "leave out -o and --format" in stderr
    assert list(tmp_path.iterdir()) == []
