"""Output files (`tools -o`, `lint -o`) are written safely: a regular file is replaced whole; a device, a
FIFO, `-` and a symlink's target are written in place, never replaced; a failed write is
`output-unwritable`. No test touches anything outside its own folder: /dev/full is reached through a
symlink in it, so a wrong implementation could replace only that link."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from specbridge.cli import app
from specbridge.cli._output import wants_colour

EXAMPLE = str(Path(__file__).resolve().parents[2] / "src" / "specbridge" / "examples" / "shop.openapi.yaml")


def tools(*words: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["tools", EXAMPLE, *words])
    return result.exit_code, result.stdout, result.stderr


def test_a_regular_file_is_replaced_whole_and_keeps_its_permissions(tmp_path: Path) -> None:
    target = tmp_path / "tools.json"
    target.write_text("old")
    target.chmod(0o600)
    code, _, _ = tools("-o", str(target))
    assert code == 0
    assert json.loads(target.read_text())["tools"]
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert sorted(path.name for path in tmp_path.iterdir()) == ["tools.json"]  # no partial file left


def test_a_symlink_is_followed_its_target_rewritten_and_the_link_kept(tmp_path: Path) -> None:
    real = tmp_path / "real.json"
    real.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    code, _, _ = tools("-o", str(link))
    assert code == 0
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert json.loads(real.read_text())["tools"]


def test_a_fifo_is_written_in_place_for_the_reader_on_the_other_end(tmp_path: Path) -> None:
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    received: list[bytes] = []

    def read() -> None:
        with open(fifo, "rb") as stream:
            received.append(stream.read())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    code, _, _ = tools("-o", str(fifo))
    reader.join(timeout=30)
    assert code == 0
    assert json.loads(received[0])["tools"]
    assert stat.S_ISFIFO(fifo.stat().st_mode)


def test_a_full_device_is_output_unwritable_and_stays_a_device(tmp_path: Path) -> None:
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full on this system")
    link = tmp_path / "full"
    link.symlink_to("/dev/full")
    code, _, stderr = tools("-o", str(link))
    assert code == 4
    assert stderr.strip() == f"error [output-unwritable]: cannot write {link}: the disk is full"
    assert link.is_symlink() and stat.S_ISCHR(link.stat().st_mode)


def test_dash_is_standard_output() -> None:
    code, stdout, _ = tools("-o", "-")
    assert code == 0
    assert json.loads(stdout)["tools"]


def test_a_closed_pipe_is_output_unwritable_not_a_traceback() -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "specbridge", "tools", EXAMPLE, "-o", "-"],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
            check=False,
        )
    finally:
        os.close(write_end)
    assert done.returncode == 4
    assert done.stderr.strip() == (
        "error [output-unwritable]: cannot write standard output: the reading end of the pipe is closed"
    )


def test_a_folder_that_does_not_exist_is_output_unwritable(tmp_path: Path) -> None:
    code, _, stderr = tools("-o", str(tmp_path / "nowhere" / "tools.json"))
    assert code == 4
    assert "error [output-unwritable]" in stderr and "its folder does not exist" in stderr


def test_lint_writes_its_report_to_the_output_file(tmp_path: Path) -> None:
    target = tmp_path / "lint.sarif"
    result = CliRunner().invoke(app, ["lint", EXAMPLE, "--format", "sarif", "-o", str(target)])
    assert result.exit_code == 0
    assert result.stdout == ""
    assert json.loads(target.read_text())["version"] == "2.1.0"


class Stream:
    def __init__(self, tty: bool) -> None:
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


@pytest.mark.parametrize(
    ("tty", "environ", "expected"),
    [
        (True, {}, True),
        (False, {}, False),
        (True, {"NO_COLOR": "1"}, False),
        (False, {"FORCE_COLOR": "1"}, True),
        (True, {"NO_COLOR": "1", "FORCE_COLOR": "1"}, False),
        (True, {"TERM": "dumb"}, False),
        (True, {"NO_COLOR": ""}, True),  # no-color.org: an empty value does not count
    ],
)
def test_colour_goes_to_a_terminal_only_as_no_color_and_force_color_say(
    monkeypatch: pytest.MonkeyPatch, tty: bool, environ: dict[str, str], expected: bool
) -> None:
    for name in ("NO_COLOR", "FORCE_COLOR", "TERM"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    assert wants_colour(Stream(tty)) is expected  # type: ignore[arg-type]


def test_an_output_never_replaces_the_document_or_a_file_it_refs(tmp_path: Path) -> None:
    document = tmp_path / "api.yaml"
    schemas = tmp_path / "schemas.yaml"
    schemas.write_text("Pet:\n  type: object\n  properties: {name: {type: string}}\n")
    document.write_text(
        "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths:\n  /pets:\n    get:\n"
        "      operationId: listPets\n      responses:\n        '200':\n          description: ok\n"
        "          content:\n            application/json:\n              schema: {$ref: 'schemas.yaml#/Pet'}\n"
    )
    before = {path: path.read_bytes() for path in (document, schemas)}
    for command in (["tools"], ["lint"]):
        for target in (document, schemas):
            result = CliRunner().invoke(app, [*command, str(document), "-o", str(target)])
            assert result.exit_code == 4, result.stderr
            assert "which this command reads; nothing was written" in result.stderr
    assert {path: path.read_bytes() for path in before} == before


@pytest.mark.parametrize(
    ("content", "kind"),
    [
        ("openapi: 3.0.3\ninfo: {title: other, version: '1'}\npaths: {}\n", "an OpenAPI document"),
        ('{"swagger": "2.0", "info": {}, "paths": {}}', "an OpenAPI document"),
        ("apis:\n  shop: {spec: ./shop.yaml}\n", "a specbridge.yaml"),
        ('{"mcpServers": {"db": {"command": "x"}}}', "an MCP client's config"),
    ],
)
def test_an_output_never_replaces_a_file_of_another_kind(tmp_path: Path, content: str, kind: str) -> None:
    target = tmp_path / "kept.yaml"
    target.write_text(content)
    for command in (["tools", EXAMPLE], ["lint", EXAMPLE, "--format", "json"]):
        result = CliRunner().invoke(app, [*command, "-o", str(target)])
        assert result.exit_code == 4
        assert result.stderr.strip() == (
            f"error [output-unwritable]: refusing to write {target}: it is {kind}, not what this command "
            "writes; nothing was written"
        )
    assert target.read_text() == content


def test_an_earlier_report_or_export_is_replaced(tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    for fmt in ("json", "sarif", "text", "markdown", "github"):
        result = CliRunner().invoke(app, ["lint", EXAMPLE, "--format", fmt, "-o", str(target)])
        assert result.exit_code == 0, result.stderr
    for fmt in ("mcp", "anthropic", "openai"):
        result = CliRunner().invoke(app, ["tools", EXAMPLE, "--format", fmt, "-o", str(target)])
        assert result.exit_code == 0, result.stderr
