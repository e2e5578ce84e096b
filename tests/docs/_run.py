"""Running a documented command: through click's runner in this process, or (`serve`, and what
`install` writes) as a process of its own, which is how a person or an MCP client runs it."""

from __future__ import annotations

import glob
import sys
from dataclasses import dataclass, field
from typing import Any

import click
from click.testing import CliRunner

from specbridge.cli import app

from . import _cli, _reading
from ._workspace import Workspace


@dataclass
class Ran:
    """A documented command as it was run, and what it did."""

    command: _reading.Command
    path: _cli.Path_
    args: list[str]  # after `specbridge`, placeholders replaced, globs expanded
    workspace: Workspace
    exit_code: int = 0
    stdout: str = ""
    stderr: str = ""
    seen: dict[str, Any] = field(default_factory=dict)  # what a check looked at, for its message

    @property
    def params(self) -> dict[str, Any]:
        command = _cli.tree()[self.path]
        context = command.make_context(" ".join(("specbridge", *self.path)), self.args[len(self.path) :])
        return context.params

    def option(self, flag: str) -> Any:
        """The value the command line gives the option spelled `flag` (its default when not given)."""
        option = _cli.options(_cli.tree()[self.path])[flag]
        return self.params[str(option.name)]

    def argument(self) -> Any:
        """The value of the command's first argument (SPEC, TOOL, APPROVAL_ID, …)."""
        command = _cli.tree()[self.path]
        first = next(param for param in command.params if isinstance(param, click.Argument))
        return self.params[str(first.name)]

    @property
    def shown(self) -> str:
        """The command as run, for messages."""
        return "specbridge " + " ".join(self.args)


def expand(words: list[str]) -> list[str]:
    """Words with `*` or `?` expanded against the current folder, as a shell does (kept as written when
    nothing matches, as bash does)."""
    expanded: list[str] = []
    for word in words:
        matches = sorted(glob.glob(word)) if any(char in word for char in "*?") else []
        expanded += matches or [word]
    return expanded


def invoke(args: list[str], workspace: Workspace) -> tuple[int, str, str]:
    """`specbridge ARGS` through click's runner, in the workspace's environment (the caller has made
    the workspace the current folder)."""
    result = CliRunner().invoke(app, args, env=workspace.env, catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def python_specbridge() -> list[str]:
    return [sys.executable, "-m", "specbridge"]
