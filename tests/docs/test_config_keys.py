"""Every config key the docs name is a key of the shipped JSON Schema (what a config is checked
against), and every key of the schema is documented on the configuration pages (docs/configuration.md,
and docs/configuration-*.md beside it).

The docs name keys in three ways, all read here: YAML examples (any page; a block whose first key is a
top-level key of the config), the `| key | … |` tables of the configuration pages (under a heading that
names where they sit: `## \\`apis.<name>\\``, `### \\`auth\\``, `## \\`apis.<name>.oauth\\``), and dotted
paths in prose (`apis.<name>.egress.allow`, `approvals.webhook.secret`)."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from . import _reading, _schema

CONFIGURATION = _reading.ROOT / "docs" / "configuration.md"
PAGES = (CONFIGURATION, *sorted(_reading.ROOT.glob("docs/configuration-*.md")))
TOP = frozenset(_schema.schema()["properties"])
DOTTED = re.compile(r"^([a-z_]+(?:\.(?:[A-Za-z0-9_-]+|<[^>]+>))+)(?:[:= ].*)?$")
Path_ = tuple[str, ...]


def config_blocks() -> Iterator[tuple[_reading.Block, object]]:
    """YAML blocks that are (part of) a specbridge.yaml, with what they parse to (or the error)."""
    for block in _reading.blocks():
        if block.info not in ("yaml", "yml", ""):
            continue
        first = next((line for line in block.lines if line.strip() and not line.lstrip().startswith("#")), "")
        if first.split(":")[0].strip() not in TOP or first.startswith((" ", "-")):
            continue
        try:
            yield block, yaml.safe_load(block.text)
        except yaml.YAMLError as error:
            yield block, error


def test_every_config_example_is_yaml() -> None:
    broken = [
        f"{_reading.where(block.page, block.line)}: {str(error).splitlines()[0]}"
        for block, error in config_blocks()
        if isinstance(error, yaml.YAMLError)
    ]
    assert not broken, "config examples that are not YAML:\n" + "\n".join(broken)


def test_every_key_of_a_config_example_is_a_key_of_the_schema() -> None:
    unknown = []
    for block, data in config_blocks():
        if isinstance(data, dict):
            unknown += [
                f"{_reading.where(block.page, block.line)}: {path}"
                for path, key in _schema.keys_of_value(data, [_schema.schema()], "")
                if key is None
            ]
    assert not unknown, "keys the schema does not have:\n" + "\n".join(unknown)


def dotted(text: str) -> Path_ | None:
    found = DOTTED.match(text)
    return tuple(found.group(1).split(".")) if found else None


def test_every_config_path_the_docs_write_is_a_key_of_the_schema() -> None:
    unknown = [
        f"{_reading.where(span.page, span.line)}: `{span.text}`"
        for span in _reading.spans()
        if (path := dotted(span.text)) and path[0] in TOP and _schema.walk_path(path) is None
    ]
    assert not unknown, "config keys the schema does not have:\n" + "\n".join(unknown)


def _resolve(path: Path_, bases: list[Path_]) -> Path_ | None:
    """`path` under the nearest base where the schema has it; else the one place in the schema whose
    path ends with it."""
    for base in bases:
        if _schema.walk_path((*base, *path)) is not None:
            return (*base, *path)
    ends = {
        tuple(full.split(".")[: -len(path)])
        for full in _schema.every_key().values()
        if tuple(full.split(".")[-len(path) :]) == tuple("<name>" if p.startswith("<") else p for p in path)
    }
    return (*next(iter(ends)), *path) if len(ends) == 1 else None


@functools.cache
def section_paths() -> dict[_reading.Section, Path_]:
    """Where in the config each section of the configuration pages is (`### \\`auth\\`` under
    `## \\`apis.<name>\\`` is `apis.<name>.auth`); a section naming no key is where its parent is."""
    found: dict[_reading.Section, Path_] = {}
    stack: list[tuple[int, Path_]] = []
    for section in (section for page in PAGES for section in _reading.sections(page)):
        if section.level == 1:
            stack = []
        stack = [(level, path) for level, path in stack if level < section.level]
        bases = [path for _, path in reversed(stack)] + [()]
        here = bases[0]
        for code in _reading.INLINE.finditer(section.title):
            path = dotted(code.group(2)) or (
                (code.group(2),) if re.fullmatch(r"[a-z_]+", code.group(2)) else None
            )
            resolved = _resolve(path, bases) if path else None
            if resolved is not None:
                here = resolved
        found[section] = here
        stack.append((section.level, here))
    return found


def entries(path: Path_) -> Path_:
    """A table under a map's heading (`## Connectors: operations`) names the keys of its entries."""
    walked = _schema.walk_path(path)
    if walked is None or any("properties" in shape for node in walked[1] for shape in _schema.shapes(node)):
        return path
    return (*path, "<name>")


def table_keys() -> Iterator[tuple[str, Path_, list[str]]]:
    """(where, key path, the row's other cells) for every row of a `| key | … |` table of the
    configuration pages; a cell naming several keys (`name`, `timeout`) gives each."""
    header: list[str] = []
    rows = [(page, *row) for page in PAGES for row in _reading.prose(page)]
    for page, number, line, section in rows:
        if not line.startswith("|"):
            header = []
            continue
        cells = _reading.cells(line)
        if not header:
            header = cells
            continue
        if set(cells[0]) <= set("-: ") or header[0].strip("`").lower() != "key":
            continue
        base = entries(section_paths()[section]) if section else ()
        for code in _reading.INLINE.finditer(cells[0]):
            path = dotted(code.group(2)) or (code.group(2),)
            yield _reading.where(page, number), (*base, *path), cells[1:]


def test_every_key_of_a_configuration_table_is_a_key_of_the_schema() -> None:
    unknown = [
        f"{where}: {'.'.join(path)}" for where, path, _ in table_keys() if _schema.walk_path(path) is None
    ]
    assert not unknown, "table keys the schema does not have:\n" + "\n".join(unknown)


def documented() -> set[_schema.KeyId]:
    """The keys the configuration pages name, in any of the three ways."""
    named: set[_schema.KeyId] = set()
    for block, data in config_blocks():
        if block.page in PAGES and isinstance(data, dict):
            named |= {key for _, key in _schema.keys_of_value(data, [_schema.schema()], "") if key}
    for _, path, cells in table_keys():
        walked = _schema.walk_path(path)
        if walked is None:
            continue
        named.update(walked[0])
        for cell in cells:
            for code in _reading.INLINE.finditer(cell):
                named |= _flow_keys(code.group(2), walked[1])
    for span in (span for page in PAGES for span in _reading.spans(page)):
        base = section_paths()[span.section] if span.section else ()
        path = dotted(span.text)
        if path is not None:
            resolved = _resolve(path, [base, ()])
            if resolved is not None and (walked := _schema.walk_path(resolved)) is not None:
                named.update(walked[0])
            continue
        for start in (base, ()):
            if (walked := _schema.walk_path(entries(start))) is not None:
                named |= _flow_keys(span.text, walked[1], strict=True)
    return named


def _flow_keys(text: str, nodes: list[_schema.Node], *, strict: bool = False) -> set[_schema.KeyId]:
    """The keys a YAML flow mapping in inline code names under `nodes`: `{url, client_id, secret}`
    in a row, `webhook: {url, secret, egress, events}` in prose. A key not directly under `nodes`
    is looked for below them (`{name, type, enum}` describes each parameter of a list); with
    `strict`, a mapping whose first key is not under `nodes` names nothing."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        return set()
    if not isinstance(data, dict) or not data:
        return set()
    nodes = [*nodes, *(item for node in nodes for item in _schema.items(node))]  # `{…}` of each item
    found = list(_schema.keys_of_value(data, nodes, ""))
    if strict and (not found or found[0][1] is None):
        return set()
    named = {key for _, key in found if key is not None}
    return named | _below(nodes, {path for path, key in found if key is None and "." not in path})


def _below(nodes: list[_schema.Node], names: set[str]) -> set[_schema.KeyId]:
    """The keys named `names` anywhere under `nodes` (a `{name, type, enum}` list in a row)."""
    found: set[_schema.KeyId] = set()
    pending, seen = list(nodes), set()
    while pending:
        for shape in _schema.shapes(pending.pop()):
            if id(shape) in seen:
                continue
            seen.add(id(shape))
            for key, value in shape.get("properties", {}).items():
                if key in names:
                    found.add((id(shape), key))
                pending.append(value)
            pending += [v for v in shape.get("patternProperties", {}).values()]
            if isinstance(shape.get("additionalProperties"), dict):
                pending.append(shape["additionalProperties"])
            if isinstance(shape.get("items"), dict):
                pending.append(shape["items"])
    return found


def test_every_key_of_the_schema_is_in_configuration_md() -> None:
    named = documented()
    missing = sorted(path for key, path in _schema.every_key().items() if key not in named)
    assert not missing, "keys of specbridge.schema.json that no configuration page names:\n" + "\n".join(
        missing
    )


@pytest.mark.parametrize("path", ["apis.<name>.egress.allow", "approvals.webhook.secret", "limits.max_items"])
def test_the_walk_finds_keys_the_schema_has(path: str) -> None:
    assert _schema.walk_path(tuple(path.split("."))) is not None


@pytest.mark.parametrize("path", ["apis.<name>.base_ulr", "approvals.webhook.secrets", "limits.max_item"])
def test_the_walk_refuses_keys_the_schema_lacks(path: str) -> None:
    assert _schema.walk_path(tuple(path.split("."))) is None


def value_tables() -> Iterator[tuple[str, Path_, set[str]]]:
    """(where, key path, the values listed) for every table of the configuration pages whose first
    header cell is a key in code (`| \\`type\\` | what is sent |`): a table of that key's values."""
    for page in PAGES:
        yield from _value_tables(page)


def _value_tables(page: Path) -> Iterator[tuple[str, Path_, set[str]]]:
    header: list[str] = []
    rows: list[str] = []
    start = 0
    for number, line, section in [*_reading.prose(page), (0, "", None)]:
        if line.startswith("|"):
            if not header:
                header, rows, start, base = _reading.cells(line), [], number, section
            elif not set(_reading.cells(line)[0]) <= set("-: "):
                rows.append(_reading.cells(line)[0])
            continue
        if header and re.fullmatch(r"`[a-z_]+`", header[0]):
            path = (*(entries(section_paths()[base]) if base else ()), header[0].strip("`"))
            yield _reading.where(page, start), path, {value.strip("`") for value in rows}
        header = []


def test_a_table_of_a_keys_values_lists_the_values_the_schema_takes() -> None:
    wrong = []
    for where, path, listed in value_tables():
        walked = _schema.walk_path(path)
        allowed = {
            str(value).lower()
            for node in (walked[1] if walked else [])
            for shape in _schema.shapes(node)
            for value in shape.get("enum", [])
        }
        if listed != allowed:
            wrong.append(f"{where}: {'.'.join(path)}: lists {sorted(listed)}, takes {sorted(allowed)}")
    assert not wrong, "\n".join(wrong)
    assert [path for _, path, _ in value_tables()], "no table of values found: the reading is broken"
