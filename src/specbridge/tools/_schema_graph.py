"""The reference graph of one document's schemas: which `$ref` targets are recursive.

A target is recursive when it is in a strongly connected component of the graph of `$ref`s (Tarjan's
algorithm, iteratively) with more than one member, or refers to itself. Being a property of the graph,
not of the path that reached it, the answer is the same whichever operation asks first; it is worked
out once per component, on first use.
"""

from __future__ import annotations

import contextlib
from typing import Any

from ..document import Resolver, UnresolvedRef
from ..document.pointer import walk_pointer

Json = Any

# Keys whose values are data, never schemas: a `$ref` inside them is not a reference.
DATA_KEYS = frozenset({"example", "examples", "default", "enum", "const", "x-example"})
# Keys whose values map names to schemas (a property may be called `example`).
NAME_MAPS = frozenset(
    {"properties", "patternProperties", "dependentSchemas", "$defs", "definitions", "schemas"}
)


class ReferenceGraph:
    """The `$ref` graph of one document, explored lazily from the targets asked about."""

    def __init__(self, resolver: Resolver) -> None:
        self.resolver = resolver
        self._component: dict[str, int] = {}
        self._recursive: set[str] = set()

    def is_recursive(self, key: str) -> bool:
        """Whether the target `key` (a resolved `$ref`'s key) takes part in a reference cycle."""
        self._find_cycles(key)
        return key in self._recursive

    def _edges(self, key: str) -> list[str]:
        base, _, pointer = key.partition("#")
        try:
            value = walk_pointer(self.resolver.file(base), pointer)
        except (KeyError, IndexError):
            return []
        found: list[str] = []
        # (node, is_name_map): under `properties` & co. the keys are names, so a property called
        # `example` or `default` is a schema; elsewhere those keys hold data and their `$ref`s are not refs.
        stack: list[tuple[Json, bool]] = [(value, False)]
        while stack:
            node, is_name_map = stack.pop()
            if isinstance(node, dict):
                ref = node.get("$ref")
                if isinstance(ref, str) and not is_name_map:
                    with contextlib.suppress(UnresolvedRef):
                        found.append(self.resolver.resolve(base, ref).key)
                    continue
                stack.extend(
                    (v, not is_name_map and k in NAME_MAPS)
                    for k, v in node.items()
                    if (is_name_map or k not in DATA_KEYS) and isinstance(v, dict | list)
                )
            elif isinstance(node, list):
                stack.extend((v, False) for v in node if isinstance(v, dict | list))
        return found

    def _find_cycles(self, start: str) -> None:
        """Tarjan's strongly connected components, iteratively, from `start` over unvisited targets."""
        if start in self._component:
            return
        index: dict[str, int] = {}
        low: dict[str, int] = {}
        on_stack: set[str] = set()
        stack: list[str] = []
        edges: dict[str, list[str]] = {}
        counter = len(self._component)
        work: list[tuple[str, int]] = [(start, 0)]
        while work:
            node, position = work.pop()
            if position == 0:
                index[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack.add(node)
                edges[node] = self._edges(node)
            successors = edges[node]
            if position < len(successors):
                work.append((node, position + 1))
                child = successors[position]
                if child in self._component:
                    continue
                if child not in index:
                    work.append((child, 0))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            if low[node] == index[node]:
                members = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    members.append(member)
                    self._component[member] = index[node]
                    if member == node:
                        break
                if len(members) > 1 or node in edges[node]:
                    self._recursive.update(members)
            if work:
                parent = work[-1][0]
                if parent in low:
                    low[parent] = min(low[parent], low[node])
