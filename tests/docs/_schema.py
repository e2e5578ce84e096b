"""The shipped JSON Schema of specbridge.yaml walked key by key, the way a config is read.

A key is identified by the object schema that declares it and its name, so a key of a shared
definition (`egress`, `approvals`, `webhook`) is one key wherever it is used: documented once under
`apis.<name>.egress`, it is documented for `approvals.webhook.egress` too.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from specbridge.config import SCHEMA_FILE

Node = dict[str, Any]
KeyId = tuple[int, str]  # (id of the object schema declaring it, its name)
PLACEHOLDER = re.compile(r"^<[^>]*>$|^\{[^}]*\}$")  # `<name>`, `<id>`: any entry of a map


@functools.cache
def schema() -> Node:
    loaded: Node = json.loads(Path(str(SCHEMA_FILE)).read_text(encoding="utf-8"))
    return loaded


def _resolve(node: Node) -> Node:
    while "$ref" in node:
        node = schema()["$defs"][node["$ref"].rsplit("/", 1)[-1]]
    return node


def shapes(node: Node) -> list[Node]:
    """`node` and every branch of it (`anyOf`, `oneOf`, `allOf`), references followed."""
    node = _resolve(node)
    found = [node]
    for keyword in ("anyOf", "oneOf", "allOf"):
        for branch in node.get(keyword, []):
            found += shapes(branch)
    return found


def is_mapping_of_keys(node: Node) -> bool:
    """Whether the schema says which keys a mapping here may have, or what each entry of it is (else
    its keys are free: a JSON Schema of an operation's body)."""
    return any(
        "properties" in shape
        or "patternProperties" in shape
        or shape.get("additionalProperties") is False
        or isinstance(shape.get("additionalProperties"), dict)
        for shape in shapes(node)
    )


@dataclass(frozen=True)
class Step:
    keys: tuple[KeyId, ...]  # the declared keys this step names (none for an entry of a map)
    nodes: tuple[Node, ...]  # the schemas of the value


def step(node: Node, key: str) -> Step | None:
    """The value's schema under `key` (`<name>` for any entry of a map); None when no key of that
    name may be here."""
    keys: list[KeyId] = []
    nodes: list[Node] = []
    for shape in shapes(node):
        declared = shape.get("properties", {})
        if key in declared and not PLACEHOLDER.match(key):
            keys.append((id(shape), key))
            nodes.append(declared[key])
    if keys:
        return Step(tuple(keys), tuple(nodes))
    for shape in shapes(node):
        for pattern, value in shape.get("patternProperties", {}).items():
            if PLACEHOLDER.match(key) or re.search(pattern, key):
                nodes.append(value)
        extra = shape.get("additionalProperties")
        if isinstance(extra, dict):
            nodes.append(extra)
    return Step((), tuple(nodes)) if nodes else None


def items(node: Node) -> list[Node]:
    return [shape["items"] for shape in shapes(node) if isinstance(shape.get("items"), dict)]


def walk_path(path: tuple[str, ...], start: Node | None = None) -> tuple[list[KeyId], list[Node]] | None:
    """The keys a dotted path names and the schemas it ends at; None when a key of it is not there."""
    nodes = [start if start is not None else schema()]
    named: list[KeyId] = []
    for key in path:
        steps = [found for node in nodes if (found := step(node, key)) is not None]
        if not steps:
            return None
        named += [key_id for found in steps for key_id in found.keys]
        nodes = [node for found in steps for node in found.nodes]
    return named, nodes


@functools.cache
def every_key() -> dict[KeyId, str]:
    """Every key the schema declares, with a path that reaches it (`apis.<name>.egress.allow`)."""
    found: dict[KeyId, str] = {}

    def walk(node: Node, path: str, seen: frozenset[int]) -> None:
        for shape in shapes(node):
            if id(shape) in seen:
                continue
            inside = seen | {id(shape)}
            for key, value in shape.get("properties", {}).items():
                found.setdefault((id(shape), key), f"{path}.{key}".lstrip("."))
                walk(value, f"{path}.{key}", inside)
            for value in shape.get("patternProperties", {}).values():
                walk(value, f"{path}.<name>", inside)
            if isinstance(shape.get("additionalProperties"), dict):
                walk(shape["additionalProperties"], f"{path}.<name>", inside)
            if isinstance(shape.get("items"), dict):
                walk(shape["items"], f"{path}[]", inside)

    walk(schema(), "", frozenset())
    return found


def keys_of_value(value: Any, nodes: list[Node], path: str) -> Iterator[tuple[str, KeyId | None]]:
    """Every key of a YAML value read against the schemas it is under: (path, the key, or None when
    the schema has no such key)."""
    if isinstance(value, list):
        inner = [item for node in nodes for item in items(node)]
        for index, item in enumerate(value):
            yield from keys_of_value(item, inner, f"{path}[{index}]")
        return
    if not isinstance(value, dict) or not any(is_mapping_of_keys(node) for node in nodes):
        return
    for key, child in value.items():
        where = f"{path}.{key}".lstrip(".")
        steps = [found for node in nodes if (found := step(node, str(key))) is not None]
        if not steps:
            yield where, None
            continue
        for found in steps:
            for key_id in found.keys:
                yield where, key_id
        yield from keys_of_value(child, [node for found in steps for node in found.nodes], where)
