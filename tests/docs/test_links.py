"""Every link between the pages lands: the file exists and the `#anchor` is a heading of it (GitHub's
anchors: the heading in lower case, punctuation dropped, spaces as dashes). README's links are absolute
(the package index shows README without the repository), so those to this repository's `blob/main/…`
are read as the files they name. Every page of docs/ can be reached from README by following links,
and none is over 40 KB (a page is read whole; past that it is split by topic)."""

from __future__ import annotations

import functools
import re
from pathlib import Path

from . import _reading

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
REPOSITORY = "https://github.com/specbridge/specbridge/blob/main/"
LARGEST_PAGE = 40_000  # bytes: past that a page is split by topic


def slug(title: str) -> str:
    text = re.sub(r"[^\w\- ]", "", title.replace("`", "").strip().lower())
    return text.replace(" ", "-")


@functools.cache
def anchors(page: Path) -> frozenset[str]:
    found: set[str] = set()
    for section in _reading.sections(page):
        base = slug(section.title)
        name, count = base, 0
        while name in found:
            count += 1
            name = f"{base}-{count}"
        found.add(name)
    return frozenset(found)


def links() -> list[tuple[str, Path, str, str]]:
    """(where, the page it is on, the target file's path as written, the anchor) of every link to a
    page of this repository, from README.md, the pages of docs/ and the other pages at the top."""
    found = []
    for page in (*_reading.PAGES, *_reading.TOP_PAGES):
        for piece, _ in _reading.paragraphs(page):
            text = " ".join(line.strip() for _, line in piece)  # a link's text may go on to the next line
            starts = [0]
            for _, line in piece:
                starts.append(starts[-1] + len(line.strip()) + 1)
            for match in LINK.finditer(text):
                number = piece[max(i for i, start in enumerate(starts[:-1]) if start <= match.start())][0]
                target = match.group(1)
                if target.startswith(REPOSITORY):
                    file, _, anchor = target[len(REPOSITORY) :].partition("#")
                    resolved = _reading.ROOT / file
                elif target.startswith(("http://", "https://", "mailto:")):
                    continue
                else:
                    file, _, anchor = target.partition("#")
                    resolved = (page.parent / file) if file else page
                found.append((_reading.where(page, number), resolved.resolve(), target, anchor))
    return found


def test_every_link_to_a_page_lands_on_a_file_and_a_heading_of_it() -> None:
    broken = []
    for where, resolved, target, anchor in links():
        if not resolved.exists():
            broken.append(f"{where}: {target}: no such file")
        elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
            broken.append(f"{where}: {target}: no heading #{anchor}")
    assert not broken, "\n".join(broken)


def test_every_page_of_the_docs_is_reached_from_readme() -> None:
    """README's table names the pages a reader starts from; the others (a topic's own pages, the
    history) are linked from those."""
    readme = _reading.PAGES[0]
    assert readme.name == "README.md"
    by_page: dict[Path, set[Path]] = {}
    for where, resolved, _, _ in links():
        page = (_reading.ROOT / where.rpartition(":")[0]).resolve()
        by_page.setdefault(page, set()).add(resolved)
    reached, pending = {readme.resolve()}, [readme.resolve()]
    while pending:
        for target in by_page.get(pending.pop(), set()):
            if target.suffix == ".md" and target not in reached:
                reached.add(target)
                pending.append(target)
    missing = [
        str(page.relative_to(_reading.ROOT)) for page in _reading.PAGES if page.resolve() not in reached
    ]
    assert not missing, f"pages no link from README.md leads to: {missing}"


def test_no_page_of_the_docs_is_over_40_kb() -> None:
    large = {
        str(page.relative_to(_reading.ROOT)): page.stat().st_size
        for page in _reading.PAGES[1:]
        if page.stat().st_size > LARGEST_PAGE
    }
    assert not large, f"pages over {LARGEST_PAGE} bytes (split them by topic): {large}"


def test_the_anchor_rule_is_githubs() -> None:
    assert slug("Connectors: `operations`") == "connectors-operations"
    assert slug("`clients.<id>`") == "clientsid"
    assert slug("Request fidelity (`bench/fidelity.py`)") == "request-fidelity-benchfidelitypy"
