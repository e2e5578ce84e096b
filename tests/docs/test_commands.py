"""Every fenced `specbridge …` command of README.md and docs/*.md, run against the example shop (the
API `specbridge demo` serves, on loopback) with a config of the test's own, in a folder holding the
files the docs name. A command fails the test when its exit status or what it prints or writes is not
what the docs say (tests/docs/_checks.py: one check per command).

The commands of one fenced block run in order in one folder (the baseline one line writes, the next
one reads). Placeholders (`ID`, a local API's `127.0.0.1:8080`) come from `_workspace.SUBSTITUTIONS`;
a usage line (`lint SPEC... [--format text|json|…]`) is not run: its command, flags and choices are
checked by test_cli_reference.py; what cannot run here is in `_workspace.NOT_RUN` with its reason.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import click
import pytest

from . import _checks, _cli, _reading, _run
from ._workspace import NOT_RUN, Shop, make_workspace, normalised, running_shop, substitute

USAGE = re.compile(r"\||…|\.\.\.")  # `a|b`, `SPEC...`: a usage line, not a command to run
OPTIONAL = re.compile(r"\[(--?[A-Za-z][^\[\]]*)\]")  # `[--port 8765]`: run with it


def is_usage(text: str) -> bool:
    return bool(USAGE.search(re.sub(r"'[^']*'|\"[^\"]*\"", "", text)))


def runnable() -> list[list[_reading.Command]]:
    """The fenced commands to run, one list per fenced block."""
    by_block: dict[tuple[Path, int], list[_reading.Command]] = {}
    for command in _reading.fenced_commands():
        if is_usage(command.text) or normalised(command.text) in NOT_RUN:
            continue
        by_block.setdefault((command.page, command.block), []).append(command)
    return list(by_block.values())


def prepared(text: str, path: _cli.Path_) -> list[str]:
    """The words to run: `[--optional]` parts kept, globs expanded; an HTTP `serve` on a free port (its
    default 8765 may be taken by any other program of the machine)."""
    words = _run.expand(_cli.words(OPTIONAL.sub(r"\1", text))[1:])
    if path == ("serve",) and "http" in words:
        if "--port" in words:
            words[words.index("--port") + 1] = "0"
        else:
            words += ["--port", "0"]
    return words


@pytest.fixture(scope="module")
def shop() -> Iterator[Shop]:
    with running_shop() as running:
        yield running


@pytest.mark.parametrize("block", runnable(), ids=lambda block: block[0].where)
def test_the_documented_commands_do_what_the_docs_say(
    block: list[_reading.Command], shop: Shop, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace = make_workspace(tmp_path, shop)
    monkeypatch.chdir(tmp_path)
    problems = []
    for command in block:
        text = substitute(command.text, workspace)
        [path] = _cli.read(text).paths
        args = prepared(text, path)
        ran = _run.Ran(command, path, args, workspace)
        check = _checks.CHECKS.get(path, _checks.check_exit)
        try:
            ran.params  # noqa: B018  (click reads the command line as the command will)
        except click.ClickException as error:
            problems.append(
                f"{command.where}: `{ran.shown}`: the command line is refused: {error.format_message()}"
            )
            continue
        if path not in _checks.RUNS_ITSELF:
            ran.exit_code, ran.stdout, ran.stderr = _run.invoke(args, workspace)
        found = check(ran) + _checks.documented_output(ran)
        problems += [f"{command.where}: `{ran.shown}`: {problem}" for problem in found]
        if found and ran.seen.get("log"):
            problems += ["    " + line for line in ran.seen["log"][-5:]]
    assert not problems, "\n".join(problems)


def test_every_command_left_unrun_is_still_in_the_docs() -> None:
    written = {normalised(command.text) for command in _reading.fenced_commands()}
    assert set(NOT_RUN) <= written, set(NOT_RUN) - written
