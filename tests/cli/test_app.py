"""The `specbridge` command as a whole: help, lazy command loading, config errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from specbridge.cli import app
from specbridge.cli._app import COMMAND_MODULES, EXIT_UNREADABLE


def test_help_lists_every_command() -> None:
    result = CliRunner().invoke(app, ["--help"])
    assert result.exit_code == 0
    for name in COMMAND_MODULES:
        assert f"  {name} " in result.output


def test_the_tools_command_does_not_import_the_mcp_sdk_or_httpx() -> None:
    code = (
        "import sys; from specbridge.cli import app; "
        "app(['tools', '--help'], standalone_mode=False); "
        "print(sorted(m for m in ('mcp', 'httpx', 'starlette') if m in sys.modules))"
    )
    output = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert output.stdout.strip().endswith("[]")


def test_lint_and_tools_on_a_document_load_neither_the_config_reader_nor_the_call_layer() -> None:
    example = Path(__file__).resolve().parents[2] / "src/specbridge/examples/shop.openapi.yaml"
    for command in (["lint", str(example)], ["tools", str(example)]):
        code = (
            "import sys, contextlib, io; from specbridge.cli import app\n"
            "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
            f"    app({command!r})\n"
            "print(sorted(m for m in ('specbridge.config', 'specbridge.call') if m in sys.modules))"
        )
        output = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
        )
        assert output.stdout.strip().endswith("[]"), (command, output.stdout[-300:])


def test_serve_with_a_config_that_names_no_api_says_so(tmp_path: Path) -> None:
    path = tmp_path / "specbridge.yaml"
    path.write_text("lint: {disable: [width]}\n")
    result = CliRunner().invoke(app, ["serve", "--config", str(path)])
    assert result.exit_code == EXIT_UNREADABLE
    assert "apis: names no API" in result.output
