"""Where a JSON pointer sits in a document's text: line and column, 1-based, for messages and findings.

`Locator(text)` answers many pointers over one text. It never parses the whole document: each step of a
pointer finds the children of one node with a regular-expression pass over that node's region only,
and remembers them, so pointers that share a prefix share the work.

- Block YAML and pretty-printed JSON are read by indentation: a mapping's keys (or a sequence's items)
  sit at one indentation, and the region ends at the first line indented less.
- Flow YAML (`{a: 1, b: [x]}`) and minified JSON are read by a small tokenizer (strings, brackets,
  commas, colons) over the container's text.

It answers None rather than guess when it cannot follow the text (anchors and aliases, complex keys).
"""

from __future__ import annotations

import functools
import json
import json.scanner
import re
from dataclasses import dataclass, field

from .pointer import pointer_tokens

_KEY = r"""(?P<key>"(?:[^"\\\n]|\\.)*"|'(?:[^'\n]|'')*'|[^\s#'"?:,\[\]{}\-][^\n]*?|-[^\s\n][^\n]*?)"""
_KEY_AT = re.compile(_KEY + r"[ \t]*:(?=[ \t\r\n]|$)")
_SIGNIFICANT_LINE = re.compile(r"^( *)(?=[^ \r\n#])", re.M)
_FLOW_TOKEN = re.compile(
    r""""(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[{}\[\],:]|#[^\n]*|[^\s{}\[\],:"'#](?:[^{}\[\],:\n]|:(?![\s,\]}]))*"""
)
_PROPERTIES = re.compile(r"(?:[&!][^\s]*[ \t]+)+")  # anchors and tags before a value
# `scan_once(text, index)` → (value, end): JSON's C scanner, to step over a whole value at once.
_SCAN = json.scanner.make_scanner(json.JSONDecoder())  # type: ignore[arg-type]  # typeshed: the context is any decoder


@dataclass(frozen=True, slots=True)
class _Node:
    pos: int  # where the key or item starts (what a position points at)
    value: int  # where its value starts
    indent: int  # the column of the key or item (-1 for the root)
    item: bool = False


@dataclass(slots=True)
class _Children:
    keys: dict[str, _Node] = field(default_factory=dict)
    items: list[_Node] = field(default_factory=list)


@functools.cache
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.M)


def _key_text(raw: str) -> str:
    raw = raw.strip()
    if raw.startswith('"'):
        try:
            value = json.loads(raw)
            return value if isinstance(value, str) else raw
        except ValueError:
            return raw[1:-1]
    if raw.startswith("'"):
        return raw[1:-1].replace("''", "'")
    return raw


class Locator:
    """Line and column of JSON pointers in one document text; the work is shared between pointers."""

    def __init__(self, text: str) -> None:
        self.text = "\n" + text  # every line, the first too, starts after a newline
        self._children: dict[tuple[int, bool], _Children | None] = {}
        self._nodes: dict[str, _Node | None] = {}
        self._searched: set[int] = set()  # mappings asked for one key by `_block_key` already

    def position(self, pointer: str) -> tuple[int, int] | None:
        """(line, column) of the key or item the pointer names, or None when the text cannot be followed."""
        if len(self.text) == 1:
            return None
        node = self._node(pointer)
        return None if node is None else self._line_column(node.pos)

    def positions(self, pointers: list[str]) -> list[tuple[int, int] | None]:
        """Many pointers at once: lines are counted in one pass over the text, in offset order."""
        if len(self.text) == 1:
            return [None] * len(pointers)
        nodes = [self._node(pointer) for pointer in pointers]
        offsets = sorted({node.pos for node in nodes if node is not None})
        lines: dict[int, tuple[int, int]] = {}
        line, last = 0, 0
        for offset in offsets:
            line += self.text.count("\n", last, offset)
            last = offset
            lines[offset] = (line, offset - (self.text.rfind("\n", 0, offset) + 1) + 1)
        return [None if node is None else lines[node.pos] for node in nodes]

    def _line_column(self, offset: int) -> tuple[int, int]:
        line = self.text.count("\n", 0, offset)
        return line, offset - (self.text.rfind("\n", 0, offset) + 1) + 1

    def _node(self, pointer: str) -> _Node | None:
        if pointer in self._nodes:
            return self._nodes[pointer]
        tokens = pointer_tokens(pointer)
        if not tokens:
            node: _Node | None = self._root()
        else:
            parent = self._node(pointer[: pointer.rfind("/")])
            node = None if parent is None else self._block_key(parent, tokens[-1])
            if parent is not None and node is None:
                children = self._children_of(parent)
                if children is not None:
                    token = tokens[-1]
                    node = children.keys.get(token)
                    if node is None and token.isdigit() and int(token) < len(children.items):
                        node = children.items[int(token)]
        self._nodes[pointer] = node
        return node

    def _root(self) -> _Node:
        match = _SIGNIFICANT_LINE.search(self.text, 2 if self.text.startswith("\n\ufeff") else 1)
        start = match.end() if match else 0
        while self.text.startswith(("---", "%"), start):
            match = _SIGNIFICANT_LINE.search(self.text, self.text.find("\n", start) + 1 or len(self.text))
            if match is None:
                break
            start = match.end()
        if self.text.startswith(("{", "["), start):
            return _Node(start, start, -1)
        line_start = self.text.rfind("\n", 0, start) + 1
        return _Node(line_start, line_start, -1)

    def _block_key(self, node: _Node, token: str) -> _Node | None:
        """The key `token` of a block mapping found by one search from the mapping's start, without
        reading the mapping's other keys or finding where it ends (what makes deep pointers cheap: an
        operation's `requestBody/content/…/schema/properties/x` reads a few lines, not each level's whole
        region). None whenever this shortcut does not apply or finds nothing; the caller then reads
        the node's children as usual (as it does when a second key of the same mapping is asked for:
        reading them all once is cheaper then)."""
        if node.indent < 0 or node.item or (node.value, node.item) in self._children:
            return None
        if node.value in self._searched:
            return None
        self._searched.add(node.value)
        text, start = self.text, node.value
        line_end = text.find("\n", start)
        rest = text[start:line_end].strip() if line_end >= 0 else "-"
        if rest and not rest.startswith("#"):
            return None  # a value on the key's own line: flow, a scalar, anchors or tags
        nxt = _SIGNIFICANT_LINE.search(text, line_end + 1)
        if nxt is None or len(nxt.group(1)) <= node.indent or text.startswith("-", nxt.end()):
            return None  # no children below, or a sequence
        column = len(nxt.group(1))
        plain = bool(token) and token[0] not in " \t'\"#?{[]}-&*!|>%@`,:" and "\n" not in token
        found = self._plain_key(nxt.start() - 1, column, token) if plain else None
        if found is None:  # quoted, or absent: the general pattern (compiled once per key and column)
            quoted = re.escape(token.replace("'", "''"))
            escaped = re.escape(json.dumps(token)[1:-1])
            key = _compiled(rf"\n {{{column}}}(?:'{quoted}'|\"{escaped}\")[ \t]*:(?=[ \t\r\n]|$)")
            match = key.search(text, nxt.start() - 1)
            if match is None:
                return None
            found = match.start(), self._after(match)
        at = found[0] + 1 + column
        if _compiled(rf"\n {{0,{column - 1}}}[^ \r\n#]").search(text, nxt.start() - 1, at):
            return None  # the mapping ends before it: that key belongs to another node
        return _Node(at, found[1], column)

    def _plain_key(self, start: int, column: int, token: str) -> tuple[int, int] | None:
        """(the newline before, where the value starts) of `token` written plain as a key at `column`,
        by substring search (no pattern to compile for each key)."""
        text = self.text
        needle = "\n" + " " * column + token
        position = text.find(needle, start)
        while position >= 0:
            after = position + len(needle)
            while after < len(text) and text[after] in " \t":
                after += 1
            if text.startswith(":", after) and (after + 1 == len(text) or text[after + 1] in " \t\r\n"):
                value = after + 1
                while value < len(text) and text[value] in " \t":
                    value += 1
                return position, value
            position = text.find(needle, position + 1)
        return None

    def _children_of(self, node: _Node) -> _Children | None:
        key = (node.value, node.item)
        if key not in self._children:
            self._children[key] = self._read_children(node)
        return self._children[key]

    def _read_children(self, node: _Node) -> _Children | None:
        text = self.text
        start = node.value
        if node.indent >= 0:
            properties = _PROPERTIES.match(text, start)
            if properties:
                start = properties.end()
        opening = start
        while opening < len(text) and text[opening] in " \t":
            opening += 1
        if text[opening : opening + 1] in ("{", "["):
            # Never the rest of the line as a string: minified JSON is one line of megabytes.
            after = opening + 1
            while after < len(text) and text[after] in " \t\r":
                after += 1
            if after < len(text) and text[after] not in "\n#":
                return self._flow(start)
            line_end = text.find("\n", opening)
            return self._pretty(start, len(text) if line_end < 0 else line_end)
        if node.indent < 0:
            rest, line_end = "", start - 1  # a block root: its children are on this line and below
        else:
            line_end = text.find("\n", start)
            line_end = len(text) if line_end < 0 else line_end
            rest = text[start:line_end].strip()
        if rest and not rest.startswith("#"):
            if node.item:
                match = _KEY_AT.match(text, start)
                if match and match.end() <= line_end:
                    column = start - (text.rfind("\n", 0, start) + 1)
                    children = self._block_mapping(line_end + 1, column)
                    children.keys.setdefault(
                        _key_text(match.group("key")), _Node(start, self._after(match), column)
                    )
                    return children
            return None  # a scalar
        nxt = _SIGNIFICANT_LINE.search(text, line_end + 1)
        if nxt is None:
            return None
        column = len(nxt.group(1))
        first = text[nxt.end() : nxt.end() + 2]
        is_item = first == "-" or first.startswith("- ") or first in ("-\n", "-\r")
        if column > node.indent or (column == node.indent and is_item and not node.item):
            return (
                self._block_sequence(nxt.start(), column)
                if is_item
                else self._block_mapping(nxt.start(), column)
            )
        return None

    def _after(self, match: re.Match[str]) -> int:
        position = match.end()
        while position < len(self.text) and self.text[position] in " \t":
            position += 1
        return position

    def _region_end(self, start: int, column: int, sequence: bool) -> int:
        if column == 0 and not sequence:
            return len(self.text)
        less = f" {{0,{column - 1}}}[^ \\r\\n#]" if column > 0 else "(?!)"
        pattern = rf"\n(?:{less}| {{{column}}}[^ \r\n#\-])" if sequence else rf"\n{less}"
        match = _compiled(pattern).search(self.text, start - 1 if start > 0 else 0)
        return match.start() + 1 if match else len(self.text)

    def _block_mapping(self, start: int, column: int) -> _Children:
        end = self._region_end(start, column, sequence=False)
        children = _Children()
        pattern = _compiled(rf"\n {{{column}}}" + _KEY + r"[ \t]*:(?=[ \t\r\n]|$)")
        for match in pattern.finditer(self.text, start - 1, end):
            key = _key_text(match.group("key"))
            if key not in children.keys:
                children.keys[key] = _Node(match.start("key"), self._after(match), column)
        return children

    def _block_sequence(self, start: int, column: int) -> _Children:
        end = self._region_end(start, column, sequence=True)
        children = _Children()
        item = _compiled(rf"\n {{{column}}}-(?:[ \t]+|(?=[\r\n]|$))")
        for match in item.finditer(self.text, start - 1, end):
            children.items.append(_Node(match.start() + 1 + column, match.end(), column, item=True))
        return children

    def _pretty(self, bracket: int, line_end: int) -> _Children | None:
        """Pretty-printed JSON (or flow YAML laid out one entry a line): read by indentation."""
        nxt = _SIGNIFICANT_LINE.search(self.text, line_end + 1)
        if nxt is None:
            return None
        column = len(nxt.group(1))
        end = self._region_end(nxt.start(), column, sequence=False) if column > 0 else len(self.text)
        children = _Children()
        if self.text[bracket] == "{":
            pattern = _compiled(rf"\n {{{column}}}" + _KEY + r"[ \t]*:")
            for match in pattern.finditer(self.text, nxt.start() - 1, end):
                key = _key_text(match.group("key"))
                children.keys.setdefault(key, _Node(match.start("key"), self._after(match), column))
        else:
            item = _compiled(rf"\n {{{column}}}(?=[^ \r\n}}\]#])")
            for match in item.finditer(self.text, nxt.start() - 1, end):
                children.items.append(_Node(match.end(), match.end(), column))  # after the indentation
        return children

    def _flow(self, bracket: int) -> _Children | None:
        """Minified JSON and flow YAML: one tokenizer pass over this container only (JSON's own C
        scanner steps over each value at once where the container is JSON)."""
        found = self._json_children(bracket)
        return found if found is not None else self._flow_tokens(bracket)

    def _json_children(self, bracket: int) -> _Children | None:
        """The container's children, each value skipped by the C scanner of `json`; None when the text
        is not JSON there (flow YAML: unquoted keys, comments)."""
        text = self.text
        children = _Children()
        mapping = text[bracket] == "{"
        closing = "}" if mapping else "]"
        try:
            position = self._skip_space(bracket + 1)
            if text[position] == closing:
                return children
            while True:
                if mapping:
                    if text[position] != '"':
                        return None
                    key, after_key = _SCAN(text, position)
                    colon = self._skip_space(after_key)
                    if text[colon] != ":":
                        return None
                    value = self._skip_space(colon + 1)
                    children.keys.setdefault(key, _Node(position, value, -1))
                else:
                    value = position
                    children.items.append(_Node(value, value, -1))
                _, end = _SCAN(text, value)
                position = self._skip_space(end)
                if text[position] == ",":
                    position = self._skip_space(position + 1)
                elif text[position] == closing:
                    return children
                else:
                    return None
        except (StopIteration, ValueError, IndexError, RecursionError):
            return None

    def _flow_tokens(self, bracket: int) -> _Children | None:
        children = _Children()
        mapping = self.text[bracket] == "{"
        depth = 0
        expecting_item = True
        previous: re.Match[str] | None = None
        for match in _FLOW_TOKEN.finditer(self.text, bracket):
            token = match.group()
            if token.startswith("#"):
                continue
            if token in "{[":
                if depth == 1 and not mapping and expecting_item:
                    children.items.append(_Node(match.start(), match.start(), -1))
                    expecting_item = False
                depth += 1
                if depth == 1:
                    continue
            elif token in "}]":
                depth -= 1
                if depth == 0:
                    return children
            if depth != 1:
                continue
            if token == ",":
                expecting_item = True
            elif mapping and token == ":" and previous is not None:
                key = _key_text(previous.group())
                value = self._skip_space(match.end())
                children.keys.setdefault(key, _Node(previous.start(), value, -1))
            elif not mapping and expecting_item and token != ":":
                children.items.append(_Node(match.start(), match.start(), -1))
                expecting_item = False
            previous = match
        return children

    def _skip_space(self, position: int) -> int:
        while position < len(self.text) and self.text[position] in " \t\r\n":
            position += 1
        return position


def locate(text: str, pointer: str) -> tuple[int, int] | None:
    """(line, column) of the key or item the pointer names, or None when the text cannot be followed.
    For many pointers over one text, use `Locator(text).position(...)`: it shares the work."""
    return Locator(text).position(pointer)
