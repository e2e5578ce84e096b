"""Which command a flag written on its own (`--deadline SECONDS` in a table) belongs to: the commands
its own line names (`--base-url` (for `call` and `serve`)), else the ones its section names."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass

from . import _cli, _reading

BARE_FLAG = re.compile(r"^\[?(--?[A-Za-z][A-Za-z0-9-]*)")
# `serve`, `serve --client`, `approvals list/show`: a command named in code without `specbridge`.
BARE_NAME = re.compile(r"^([a-z][a-z-]*)(?: ([a-z][a-z|/-]*))?(?: -.*)?$")

# Flags written on their own that belong to another program than specbridge, and pages whose flags do.
FOREIGN_FLAGS = {
    "-m": "Python's `-m specbridge` (run the installed module)",
    "-wal": "SQLite's `-wal` file beside a database",
    "-shm": "SQLite's `-shm` file beside a database",
    "--cli": "MCP Inspector's command-line mode",
    "--requirements": "the MCP conformance suite's requirement set",
    "--psycopg-default": "bench/store_outage.py's option",
}
FOREIGN_PAGES = {
    "docs/benchmarks.md": "its flags are the bench/ scripts' (`bench/*.py --help`)",
    "docs/benchmarks-gateway.md": "its flags are the bench/ scripts' (`bench/*.py --help`)",
    "docs/history/": "the benchmarks' history: the bench/ scripts' flags, as they were then",
}


@dataclass(frozen=True)
class BareFlag:
    span: _reading.Span
    flag: str
    rest: tuple[str, ...]  # the span's words, the flag first
    owners: tuple[_cli.Path_, ...]  # the commands it is read as belonging to (empty: any)

    @property
    def where(self) -> str:
        return _reading.where(self.span.page, self.span.line)


def _named(text: str) -> set[_cli.Path_]:
    """Commands a piece of text names in code: `specbridge serve …`, or a command's bare name
    (`serve`, `approvals list`, `approvals list/show`)."""
    found: set[_cli.Path_] = set()
    known = _cli.tree()
    for code in _reading.INLINE.finditer(text):
        inner = code.group(2).strip()
        if _reading.COMMAND.match(inner):
            found.update(path for path in _cli.read(_reading.command_text(inner)).paths if path)
            continue
        bare = BARE_NAME.match(inner)
        if bare is None or (bare.group(1),) not in known:
            continue
        subs = [(bare.group(1), name) for name in re.split(r"[|/]", bare.group(2) or "") if name]
        found.update([sub for sub in subs if sub in known] or [(bare.group(1),)])
    return found


@functools.cache
def section_commands(section: _reading.Section | None) -> frozenset[_cli.Path_]:
    """The commands a section (and its title) names, in prose or in its fenced blocks."""
    if section is None:
        return frozenset()
    found = _named(section.title)
    for span in _reading.spans(section.page):
        if span.section == section:
            found |= _named(f"`{span.text}`")
    for command in _reading.fenced_commands(section.page):
        if command.section == section:
            found.update(path for path in _cli.read(command.text).paths if path)
    return frozenset(found)


def bare_flags() -> Iterator[BareFlag]:
    """Every inline code span that starts with a flag of specbridge's, with the commands it is read
    as belonging to."""
    for span in _reading.spans():
        match = BARE_FLAG.match(span.text)
        page = str(span.page.relative_to(_reading.ROOT))
        if match is None or match.group(1) in FOREIGN_FLAGS or page.startswith(tuple(FOREIGN_PAGES)):
            continue
        try:
            rest = tuple(_cli.words(span.text))
        except ValueError:
            rest = (match.group(1),)
        owners = _named(span.context) or section_commands(span.section)
        yield BareFlag(span, match.group(1), rest, tuple(sorted(owners)))
