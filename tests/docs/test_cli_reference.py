"""Every command and flag the docs name exists in the click app, with the choices they say; and every
command and flag of the app is named somewhere in the docs. Read from whatever the pages say, so a
page, a command or a flag added tomorrow is checked without touching this file."""

from __future__ import annotations

from collections import defaultdict

from . import _cli, _context, _reading


def test_every_command_the_docs_write_is_a_command_of_the_app() -> None:
    wrong = [
        f"{command.where}: {read.problem} (`{command.text}`)"
        for command in _reading.commands()
        if (read := _cli.read(command.text)).problem
    ]
    assert not wrong, "\n".join(wrong)


def test_every_flag_written_after_a_command_is_one_of_its_options_with_its_choices() -> None:
    wrong = []
    for command in _reading.commands():
        read = _cli.read(command.text)
        for path in read.paths:
            wrong += [f"{command.where}: {problem}" for problem in _cli.check_flags(path, read.rest)]
    assert not wrong, "\n".join(wrong)


def test_a_flag_written_on_its_own_belongs_to_a_command_its_line_or_section_names() -> None:
    wrong = []
    for bare in _context.bare_flags():
        owners = bare.owners or tuple(_cli.tree())
        having = [path for path in owners if bare.flag in _cli.options(_cli.tree()[path])]
        if not having:
            named = ", ".join("specbridge " + " ".join(path) for path in bare.owners) or "any command"
            wrong.append(f"{bare.where}: `{bare.span.text}`: {named} has no option {bare.flag}")
            continue
        for path in having:
            wrong += [f"{bare.where}: {problem}" for problem in _cli.check_flags(path, bare.rest)]
    assert not wrong, "\n".join(wrong)


def documented() -> dict[_cli.Path_, set[str]]:
    """The flags the docs name for each command: after the command, or on their own where the
    line or section names it."""
    named: dict[_cli.Path_, set[str]] = defaultdict(set)
    for command in _reading.commands():
        read = _cli.read(command.text)
        for path in read.paths:
            named[path].update(flag for flag, _ in _cli.flags(read.rest))
    for bare in _context.bare_flags():
        for path in bare.owners:
            named[path].add(bare.flag)
    return named


def test_every_command_of_the_app_is_in_the_docs() -> None:
    named = documented()
    missing = [
        "specbridge " + " ".join(path)
        for path in _cli.tree()
        if path and not any(named_path[: len(path)] == path for named_path in named)
    ]
    assert not missing, "commands no page names: " + ", ".join(missing)


def test_every_option_of_every_command_is_in_the_docs() -> None:
    named = documented()
    missing = []
    for path, command in _cli.tree().items():
        spelled = _cli.options(command)
        for option in {id(option): option for option in spelled.values()}.values():
            names = {*option.opts, *option.secondary_opts}
            if names & _cli.UNIVERSAL or names & named.get(path, set()):
                continue
            missing.append(f"specbridge {' '.join(path)} {'/'.join(sorted(names))}".replace("  ", " "))
    assert not missing, "options no page names for their command:\n" + "\n".join(missing)
