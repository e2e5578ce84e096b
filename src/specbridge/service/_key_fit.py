"""A derived idempotency key that fits the document's own key field.

The gateway forwards a key derived from the agent's (`derived_key`: 64 hex digits, 256 bits) to an API
that declares its own `Idempotency-Key` header or `idempotency_key` field. Documents bound that field
(`maxLength: 45`, `format: uuid`, `pattern: ^[A-Z0-9]{10,20}$` ...), and an API refuses a key its own
schema refuses. `fit_key` turns the derived key into a value the field's schema accepts, spending the
derived key's bits on as many characters, from as wide an alphabet, as the schema allows:

    fit_key(derived, {"type": "string", "maxLength": 45})      # 45 characters of [A-Za-z0-9]
    fit_key(derived, {"type": "string", "format": "uuid"})     # a version 4 UUID (122 bits)
    fit_key(derived, {"pattern": "^[A-Z0-9]{10,20}$"})         # 20 characters of [A-Z0-9]

A key that already fits is returned unchanged (so an API sees the same key it saw before). None when
no value can satisfy the schema (an `enum`, a number, a pattern this module cannot read and no plain
alphabet satisfies). Pure: the same derived key and schema give the same value on every instance.
"""

from __future__ import annotations

import hashlib
import string
import uuid
from collections.abc import Iterator, Mapping
from typing import Any

import jsonschema_rs

Json = Any
TARGET_LENGTH = 64  # characters wanted when the schema sets no bound (256 bits of hex)
_ALNUM = string.ascii_letters + string.digits
_PRINTABLE = "".join(chr(code) for code in range(0x21, 0x7F))
# Plain alphabets tried, widest first, when the pattern cannot be read or nothing fits it directly.
_ALPHABETS = (_ALNUM, string.ascii_lowercase + string.digits, string.ascii_uppercase + string.digits,
              string.hexdigits[:16], string.digits, string.ascii_lowercase)  # fmt: skip
_KEPT = ("type", "minLength", "maxLength", "pattern", "format", "enum", "const")


def fit_key(derived: str, schema: Json) -> str | None:
    """`derived` (hex) made to fit `schema`, the key field's own (shaped) schema; see the module."""
    if not isinstance(schema, Mapping):
        return derived
    rules = {key: schema[key] for key in _KEPT if key in schema}
    kind = rules.get("type")
    if kind is not None and kind != "string" and not (isinstance(kind, list) and "string" in kind):
        return None
    accepts = _checker(rules)
    if accepts(derived):
        return derived
    low, high = _bounds(rules)
    if high < low:
        return None
    bits = _Bits(derived)
    candidates: list[str] = []
    if rules.get("format") == "uuid":
        candidates.append(str(uuid.UUID(bytes=bits.take(16), version=4)))
    pattern = rules.get("pattern")
    if isinstance(pattern, str):
        tree = _Parser(pattern).parse()
        if tree is not None:
            candidates += [_Builder(bits.fork(str(n)), low, high).build(tree) for n in range(4)]
    for alphabet in _ALPHABETS:
        stream = bits.fork(alphabet)
        candidates.append("".join(stream.choice(alphabet) for _ in range(max(low, min(high, TARGET_LENGTH)))))
    return next((candidate for candidate in candidates if accepts(candidate)), None)


def _bounds(rules: Mapping[str, Json]) -> tuple[int, int]:
    low, high = rules.get("minLength"), rules.get("maxLength")
    low = low if isinstance(low, int) and not isinstance(low, bool) else 1
    high = high if isinstance(high, int) and not isinstance(high, bool) else TARGET_LENGTH
    return max(1, low), min(high, max(low, TARGET_LENGTH))


def _checker(rules: Mapping[str, Json]) -> Any:
    """A check of a candidate against the field's own rules, as JSON Schema (ECMA-262 patterns)."""
    try:
        validator = jsonschema_rs.Draft202012Validator(dict(rules), validate_formats=True)
    except (jsonschema_rs.ValidationError, ValueError):
        return lambda value: False
    return validator.is_valid


class _Bits:
    """A deterministic stream of bytes from the derived key (SHA-256 in counter mode)."""

    def __init__(self, seed: str, label: str = "") -> None:
        self.seed = f"{seed}\0{label}"
        self.counter = 0
        self.buffer = b""

    def fork(self, label: str) -> _Bits:
        return _Bits(self.seed, label)

    def take(self, count: int) -> bytes:
        while len(self.buffer) < count:
            block = f"{self.seed}\0{self.counter}".encode()
            self.buffer += hashlib.sha256(block).digest()
            self.counter += 1
        taken, self.buffer = self.buffer[:count], self.buffer[count:]
        return taken

    def choice(self, alphabet: str) -> str:
        return alphabet[int.from_bytes(self.take(4), "big") % len(alphabet)]


# -- a small reader of the patterns key fields use ---------------------------------------------------
# Node kinds: ("chars", alphabet) one character; ("seq", [nodes]); ("alt", [nodes]) the first branch;
# ("repeat", node, low, high or None). Lookarounds, back references and the like: not read (None).

Node = tuple[Any, ...]
_CLASSES = {"d": string.digits, "w": _ALNUM + "_", "s": " "}


class _Parser:
    def __init__(self, pattern: str) -> None:
        self.text = pattern
        self.at = 0

    def parse(self) -> Node | None:
        try:
            node = self._alternation()
        except (ValueError, IndexError):
            return None
        return node if self.at == len(self.text) else None

    def _peek(self) -> str:
        return self.text[self.at] if self.at < len(self.text) else ""

    def _alternation(self) -> Node:
        branches = [self._sequence()]
        while self._peek() == "|":
            self.at += 1
            branches.append(self._sequence())
        return ("alt", branches) if len(branches) > 1 else branches[0]

    def _sequence(self) -> Node:
        items: list[Node] = []
        while self._peek() not in ("", "|", ")"):
            char = self._peek()
            if char in "^$":
                self.at += 1
                continue
            items.append(self._quantified(self._atom()))
        return ("seq", items)

    def _atom(self) -> Node:
        char = self.text[self.at]
        self.at += 1
        if char == "(":
            if self.text.startswith("?:", self.at):
                self.at += 2
            elif self._peek() == "?":
                raise ValueError("lookaround or named group")
            inner = self._alternation()
            if self._peek() != ")":
                raise ValueError("unclosed group")
            self.at += 1
            return inner
        if char == "[":
            return ("chars", self._class())
        if char == ".":
            return ("chars", _PRINTABLE)
        if char == "\\":
            return ("chars", self._escape(in_class=False))
        if char in "*+?{":
            raise ValueError("nothing to repeat")
        return ("chars", char)

    def _escape(self, *, in_class: bool) -> str:
        char = self.text[self.at]
        self.at += 1
        if char in _CLASSES:
            return _CLASSES[char]
        if char in "DWS":
            excluded = _CLASSES[char.lower()]
            return "".join(ch for ch in _PRINTABLE if ch not in excluded)
        if char == "x":
            code = int(self.text[self.at : self.at + 2], 16)
            self.at += 2
            return chr(code)
        if char == "u":
            code = int(self.text[self.at : self.at + 4], 16)
            self.at += 4
            return chr(code)
        if char.isalnum() and not (in_class and char == "b"):
            raise ValueError("an escape this reader does not know")
        return char

    def _class(self) -> str:
        negated = self._peek() == "^"
        if negated:
            self.at += 1
        chars: list[str] = []
        first = True
        while first or self._peek() != "]":
            first = False
            char = self.text[self.at]
            self.at += 1
            piece = self._escape(in_class=True) if char == "\\" else char
            if len(piece) == 1 and self._peek() == "-" and self.text[self.at + 1] != "]":
                self.at += 1
                end = self.text[self.at]
                self.at += 1
                if end == "\\":
                    end = self._escape(in_class=True)
                if len(end) != 1 or ord(end) < ord(piece):
                    raise ValueError("bad range")
                piece = "".join(chr(code) for code in range(ord(piece), ord(end) + 1))
            chars.append(piece)
        self.at += 1
        members = "".join(dict.fromkeys("".join(chars)))
        if negated:
            members = "".join(ch for ch in _PRINTABLE if ch not in members)
        if not members:
            raise ValueError("empty class")
        return members

    def _quantified(self, node: Node) -> Node:
        char = self._peek()
        low: int
        high: int | None
        if char == "*":
            low, high = 0, None
        elif char == "+":
            low, high = 1, None
        elif char == "?":
            low, high = 0, 1
        elif char == "{" and (end := self.text.find("}", self.at)) > 0:
            body = self.text[self.at + 1 : end]
            parts = body.split(",")
            if (
                len(parts) > 2
                or not parts[0].isdigit()
                or (len(parts) == 2 and parts[1] and not parts[1].isdigit())
            ):
                return node  # a literal brace
            low = int(parts[0])
            high = low if len(parts) == 1 else (int(parts[1]) if parts[1] else None)
            self.at = end
        else:
            return node
        self.at += 1
        if self._peek() == "?":  # lazy: the same strings
            self.at += 1
        return ("repeat", node, low, high)


def _shortest(node: Node) -> int:
    kind = node[0]
    if kind == "chars":
        return 1
    if kind == "seq":
        return sum(_shortest(item) for item in node[1])
    if kind == "alt":
        return _shortest(node[1][0])
    return int(node[2]) * _shortest(node[1])


def _plain(members: str) -> str:
    """A class that holds every letter and digit (`\\S`, `.`, `[\\x20-\\x7e]`) is drawn from those and
    `-`/`_` only: as many bits per character as a key needs, and nothing a header or a log mangles."""
    if all(ch in members for ch in _ALNUM):
        return _ALNUM + "".join(ch for ch in "-_" if ch in members)
    return members


class _Builder:
    """A string of a pattern's tree within [low, high] characters: each repetition as long as the
    room left allows, each character chosen from its class by the derived key's bits."""

    def __init__(self, bits: _Bits, low: int, high: int) -> None:
        self.bits = bits
        self.low = low
        self.high = high

    def build(self, tree: Node) -> str:
        room = max(0, min(self.high, max(self.low, TARGET_LENGTH)) - _shortest(tree))
        out: list[str] = []
        for piece in self._walk(tree, [room]):
            out.append(piece)
        return "".join(out)

    def _walk(self, node: Node, room: list[int]) -> Iterator[str]:
        kind = node[0]
        if kind == "chars":
            yield self.bits.choice(_plain(node[1]))
        elif kind == "seq":
            for item in node[1]:
                yield from self._walk(item, room)
        elif kind == "alt":
            yield from self._walk(node[1][0], room)
        else:
            _, item, low, high = node
            size = max(1, _shortest(item))
            extra = room[0] // size
            if high is not None:
                extra = min(extra, high - low)
            room[0] -= extra * size
            for _ in range(low + extra):
                yield from self._walk(item, room)
