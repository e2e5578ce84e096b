"""The click app as it is: every command (the lazily imported ones too), its flags and their choices;
and a command written in the docs read against it."""

from __future__ import annotations

import functools
import re
import shlex
from dataclasses import dataclass

import click

from specbridge.cli import app

Path_ = tuple[str, ...]  # a command path: ("approvals", "list")

FLAG = re.compile(r"^\[*(--?[A-Za-z][A-Za-z0-9-]*)")
UNIVERSAL = frozenset({"--help", "-h"})  # every command has them (click's help option)


@functools.cache
def tree() -> dict[Path_, click.Command]:
    """Every command of the app by path, the root as ()."""
    found: dict[Path_, click.Command] = {}

    def walk(path: Path_, command: click.Command, context: click.Context) -> None:
        found[path] = command
        if isinstance(command, click.Group):
            for name in command.list_commands(context):
                child = command.get_command(context, name)
                assert child is not None, f"`specbridge {' '.join((*path, name))}` cannot be loaded"
                walk((*path, name), child, click.Context(child, parent=context, info_name=name))

    walk((), app, click.Context(app, info_name="specbridge"))
    return found


def options(command: click.Command) -> dict[str, click.Option]:
    """Every spelling of every option (`-o` and `--output` alike), `--help` included."""
    spelled: dict[str, click.Option] = {}
    for parameter in command.params:
        if isinstance(parameter, click.Option):
            for name in (*parameter.opts, *parameter.secondary_opts):
                spelled[name] = parameter
    context = click.Context(command)
    help_option = command.get_help_option(context)
    if help_option is not None:
        for name in help_option.opts:
            spelled[name] = help_option
    return spelled


def choices(option: click.Option) -> set[str] | None:
    kind = option.type
    return {str(choice) for choice in kind.choices} if isinstance(kind, click.Choice) else None


def words(text: str) -> list[str]:
    """A command's words as a shell splits them (a markdown table's `\\|` is a `|`)."""
    return shlex.split(text.replace("\\|", "|"))


@dataclass(frozen=True)
class Written:
    """A command as written: the command paths it names (several for `approvals list|show`), and
    the words after them."""

    paths: tuple[Path_, ...]
    rest: tuple[str, ...]
    problem: str = ""


def read(text: str) -> Written:
    """`specbridge approvals list --status pending` → paths (("approvals", "list"),), rest (…)."""
    said = words(text)
    assert said and said[0] == "specbridge", text
    known = tree()
    paths: list[Path_] = [()]
    index = 1
    while index < len(said):
        names = re.split(r"[|/]", said[index].strip("[]"))
        groups = [path for path in paths if isinstance(known[path], click.Group)]
        if not groups or said[index].startswith("-"):
            break
        nexts = [(*path, name) for path in groups for name in names]
        missing = [path for path in nexts if path not in known]
        if missing:
            if any(name.isupper() or not name or name in ("…", "...") for name in names):
                break  # a placeholder (SPEC, TOOL, …): the group itself is what is named
            shown = ", ".join("specbridge " + " ".join(path) for path in missing)
            return Written(tuple(paths), tuple(said[index:]), f"no such command: {shown}")
        paths = nexts
        index += 1
    return Written(tuple(paths), tuple(said[index:]))


def flags(rest: tuple[str, ...] | list[str]) -> list[tuple[str, str | None]]:
    """(flag, the word after it) for every flag written: `[--format text|json]` gives
    ("--format", "text|json"); `--port=0` gives ("--port", "0")."""
    found: list[tuple[str, str | None]] = []
    for index, word in enumerate(rest):
        match = FLAG.match(word)
        if match is None or word in ("-", "--"):
            continue
        flag = match.group(1)
        if "=" in word:
            value: str | None = word.partition("=")[2].rstrip("]")
        elif index + 1 < len(rest) and not rest[index + 1].lstrip("[").startswith("-"):
            value = rest[index + 1]
        else:
            value = None
        found.append((flag, value))
    return found


def check_flags(path: Path_, rest: tuple[str, ...] | list[str]) -> list[str]:
    """What is wrong with the flags written for `path`: unknown flags, and `a|b|c` choice lists
    that are not the option's choices."""
    command = tree()[path]
    spelled = options(command)
    name = "specbridge " + " ".join(path)
    problems = []
    for flag, value in flags(rest):
        option = spelled.get(flag)
        if option is None:
            problems.append(f"`{name}` has no option {flag}")
            continue
        allowed = choices(option)
        if allowed is not None and value is not None and "|" in value:
            written = {choice.strip("[]") for choice in value.split("|")}
            if written != allowed:
                problems.append(
                    f"`{name} {flag}` takes {'|'.join(sorted(allowed))}, the docs say {'|'.join(sorted(written))}"
                )
    return problems
