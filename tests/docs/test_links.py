"""Every link between the pages lands: the file exists and the `#anchor` is a heading of it (GitHub's
anchors: the heading in lower case, punctuation dropped, spaces as dashes). README's links are absolute
(the package index shows README without the repository), so those to this repository's `blob/main/…`
are read as the files they name. And every page of docs/ is in README's table of pages."""

from __future__ import annotations

import functools
import re
from pathlib import Path

from . import _reading

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
REPOSITORY = "https://github.com/specbridge/specbridge/blob/main/"


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
    page of this repository."""
    found = []
    for page in _reading.PAGES:
        for number, line, _ in _reading.prose(page):
            for match in LINK.finditer(line):
                target = match.group(1)
                if target.startswith(REPOSITORY):
                    file, _, anchor = target[len(REPOSITORY) :].partition("#")
                    resolved = _reading.ROOT / file
                elif target.startswith(("http://", "https://", "mailto:")):
                    continue
                else:
                    file, _, anchor = target.partition("#")
                    resolved = (page.parent / file) if file else page
                found.append((_reading.where(page, number), resolved, target, anchor))
    return found


def test_every_link_to_a_page_lands_on_a_file_and_a_heading_of_it() -> None:
    broken = []
    for where, resolved, target, anchor in links():
        if not resolved.exists():
            broken.append(f"{where}: {target}: no such file")
        elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
            broken.append(f"{where}: {target}: no heading #{anchor}")
    assert not broken, "\n".join(broken)


def test_readme_lists_every_page_of_the_docs() -> None:
    readme = _reading.PAGES[0]
    listed = {resolved for where, resolved, _, _ in links() if where.startswith("README.md")}
    missing = [page.name for page in _reading.PAGES[1:] if page not in listed]
    assert not missing, f"pages README.md does not link: {missing}"
    assert readme.name == "README.md"


def test_the_anchor_rule_is_githubs() -> None:
    assert slug("Connectors: `operations`") == "connectors-operations"
    assert slug("`clients.<id>`") == "clientsid"
    assert slug("Request fidelity (`bench/fidelity.py`)") == "request-fidelity-benchfidelitypy"
