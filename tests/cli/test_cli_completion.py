"""Shell completion, as the README documents it: click's completion scripts for bash, zsh and fish, and
completions that know the commands (also the ones loaded on first use), their options and choices."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"
SPECBRIDGE = str(Path(sys.executable).parent / "specbridge")


def complete(*words: str, shell: str = "bash") -> list[str]:
    env = {**os.environ, "_SPECBRIDGE_COMPLETE": f"{shell}_complete", "COMP_WORDS": " ".join(words)}
    env["COMP_CWORD"] = str(len(words) - 1)
    done = subprocess.run([SPECBRIDGE], env=env, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return [line.split(",", 1)[1] for line in done.stdout.splitlines()]


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_the_readme_gives_the_completion_line_of_each_shell_and_it_makes_a_script(shell: str) -> None:
    documented = re.findall(
        r"_SPECBRIDGE_COMPLETE=(\w+)_source specbridge", README.read_text(encoding="utf-8")
    )
    assert shell in documented
    env = {**os.environ, "_SPECBRIDGE_COMPLETE": f"{shell}_source"}
    done = subprocess.run([SPECBRIDGE], env=env, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0 and "_SPECBRIDGE_COMPLETE" in done.stdout


def test_commands_options_and_choices_complete() -> None:
    assert complete("specbridge", "li") == ["lint"]
    assert {"install", "serve", "tools"} <= set(complete("specbridge", ""))
    assert complete("specbridge", "lint", "--for") == ["--format"]
    assert complete("specbridge", "install", "") == ["claude-code", "claude-desktop", "cursor", "vscode"]
