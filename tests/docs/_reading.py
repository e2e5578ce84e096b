"""What the documentation says, read the way a newcomer reads it: README.md and every page of docs/.

Nothing here knows what a page is about: sections, fenced blocks, inline code, and the `specbridge …`
commands written in either, so a page or a command added tomorrow is read (and checked) too.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# README.md and every page under docs/ (docs/history/ too): what the checks of tests/docs/ read.
PAGES = (ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")))
# The pages beside README.md at the top of the repository: their links are followed too.
TOP_PAGES = tuple(sorted(path for path in ROOT.glob("*.md") if path.name != "README.md"))

FENCE = re.compile(r"^\s*(```+|~~~+)(.*)$")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
INLINE = re.compile(r"(`+)(.+?)\1")
# A command line: `specbridge …`, `$ specbridge …`, `.venv/bin/specbridge …`, `python -m specbridge …`.
COMMAND = re.compile(r"^\s*(?:\$\s+)?(?:\S*/)?(?:specbridge|python3? -m specbridge)(?=\s|$)")


def where(page: Path, line: int) -> str:
    return f"{page.relative_to(ROOT)}:{line}"


@dataclass(frozen=True)
class Section:
    """A heading and what sits under it up to the next heading of any level; `trail` is the titles
    from the page's top heading down to this one."""

    page: Path
    line: int
    level: int
    title: str
    trail: tuple[str, ...]


@dataclass(frozen=True)
class Block:
    """A fenced block: its info string (`sh`, `yaml`, …) and its lines (without the fences)."""

    page: Path
    line: int  # the line number of its first content line
    info: str
    lines: tuple[str, ...]
    section: Section | None

    @property
    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


@dataclass(frozen=True)
class Span:
    """One piece of inline code (`…`) outside fenced blocks, with the rest of its line."""

    page: Path
    line: int
    text: str
    context: str  # the whole source line it sits on
    section: Section | None


@dataclass(frozen=True)
class Command:
    """A `specbridge …` command written in the docs: in a fenced block (continuation lines joined,
    a trailing `# comment` apart) or in inline code. `output` is what a fenced block shows it
    printing: the lines after a `$ ` prompt, up to the next command or the block's end."""

    page: Path
    line: int
    text: str  # from `specbridge` on, without prompt, path or comment
    comment: str = ""
    fenced: bool = True
    output: tuple[str, ...] = field(default=())
    section: Section | None = None
    block: int = 0  # the first line of its fenced block (0 for inline code)

    @property
    def where(self) -> str:
        return where(self.page, self.line)


@functools.cache
def _lines(page: Path) -> tuple[str, ...]:
    return tuple(page.read_text(encoding="utf-8").splitlines())


@functools.cache
def _parse(
    page: Path,
) -> tuple[tuple[Section, ...], tuple[Block, ...], tuple[tuple[int, str, Section | None], ...]]:
    """(sections, fenced blocks, prose lines with their section) of one page."""
    sections: list[Section] = []
    blocks: list[Block] = []
    prose: list[tuple[int, str, Section | None]] = []
    trail: list[tuple[int, str]] = []
    fence: str | None = None
    info = ""
    start = 0
    body: list[str] = []
    current: Section | None = None
    for number, line in enumerate(_lines(page), 1):
        opened = FENCE.match(line)
        if fence is not None:
            if opened and opened.group(1).startswith(fence) and not opened.group(2).strip():
                blocks.append(Block(page, start, info, tuple(body), current))
                fence = None
            else:
                body.append(line)
            continue
        if opened:
            fence, info, start, body = opened.group(1), opened.group(2).strip(), number + 1, []
            continue
        heading = HEADING.match(line)
        if heading:
            level = len(heading.group(1))
            trail = [(lvl, title) for lvl, title in trail if lvl < level] + [(level, heading.group(2))]
            current = Section(page, number, level, heading.group(2), tuple(t for _, t in trail))
            sections.append(current)
            continue
        prose.append((number, line, current))
    return tuple(sections), tuple(blocks), tuple(prose)


def sections(page: Path) -> tuple[Section, ...]:
    return _parse(page)[0]


def prose(page: Path) -> tuple[tuple[int, str, Section | None], ...]:
    """The lines outside fenced blocks (tables included), with their numbers and sections."""
    return _parse(page)[2]


def blocks(page: Path | None = None) -> Iterator[Block]:
    for each in (page,) if page else PAGES:
        yield from _parse(each)[1]


def paragraphs(page: Path) -> Iterator[tuple[list[tuple[int, str]], Section | None]]:
    """The prose in pieces inline code cannot cross: a paragraph (or list item) of lines, or one row
    of a table."""
    piece: list[tuple[int, str]] = []
    current: Section | None = None
    for number, line, section in _parse(page)[2]:
        starts_item = bool(re.match(r"\s*(?:[-*+]|\d+\.)\s", line))
        if piece and (not line.strip() or line.startswith("|") or starts_item or section != current):
            yield piece, current
            piece = []
        current = section
        if line.startswith("|"):
            yield [(number, line)], section
        elif line.strip():
            piece.append((number, line))
    if piece:
        yield piece, current


def spans(page: Path | None = None) -> Iterator[Span]:
    """Inline code of the prose (tables included), in page order; a span that goes on to the next
    line is read whole, as markdown reads it."""
    for each in (page,) if page else PAGES:
        for piece, section in paragraphs(each):
            text = " ".join(line.strip() for _, line in piece)
            starts = [0]
            for _, line in piece:
                starts.append(starts[-1] + len(line.strip()) + 1)
            for found in INLINE.finditer(text):
                first = max(index for index, start in enumerate(starts[:-1]) if start <= found.start())
                last = max(index for index, start in enumerate(starts[:-1]) if start <= found.end() - 1)
                context = " ".join(line.strip() for _, line in piece[first : last + 1])
                yield Span(each, piece[first][0], found.group(2).strip(), context, section)


def cells(row: str) -> list[str]:
    """The cells of a markdown table row (`\\|` is a `|` inside a cell)."""
    return [cell.strip() for cell in re.split(r"(?<!\\)\|", row.strip().strip("|"))]


def split_comment(line: str) -> tuple[str, str]:
    """(the command, its trailing `# comment`): a `#` that starts a word outside quotes."""
    quote = ""
    for index, char in enumerate(line):
        if quote:
            if char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char == "#" and (index == 0 or line[index - 1].isspace()):
            return line[:index].rstrip(), line[index + 1 :].strip()
    return line.rstrip(), ""


def command_text(line: str) -> str:
    """`$ .venv/bin/specbridge lint x  # why` → `specbridge lint x`."""
    found = COMMAND.match(line)
    assert found is not None, line
    return "specbridge" + split_comment(line[found.end() :])[0]


def fenced_commands(page: Path | None = None) -> Iterator[Command]:
    """Every `specbridge …` line of every fenced block, in page order."""
    for block in blocks(page):
        lines = list(block.lines)
        index = 0
        while index < len(lines):
            if not COMMAND.match(lines[index]):
                index += 1
                continue
            first = index
            text, comment = split_comment(lines[index])
            while text.endswith("\\") and index + 1 < len(lines):
                index += 1
                more, more_comment = split_comment(lines[index])
                text, comment = text[:-1].rstrip() + " " + more.strip(), more_comment or comment
            index += 1
            output: list[str] = []
            if lines[first].lstrip().startswith("$"):
                while index < len(lines) and not lines[index].lstrip().startswith("$"):
                    output.append(lines[index])
                    index += 1
            yield Command(
                block.page,
                block.line + first,
                command_text(text),
                comment,
                True,
                tuple(output),
                block.section,
                block.line,
            )


def inline_commands(page: Path | None = None) -> Iterator[Command]:
    """Every inline code span that is a `specbridge …` command (`specbridge approvals show ID`)."""
    for span in spans(page):
        if COMMAND.match(span.text):
            text, comment = split_comment(span.text)
            yield Command(span.page, span.line, command_text(text), comment, False, (), span.section)


def commands(page: Path | None = None) -> Iterator[Command]:
    yield from fenced_commands(page)
    yield from inline_commands(page)
