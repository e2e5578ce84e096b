"""Bindings: fixed values the model never sees (`path.shopId`, `header.X-Tenant`, `body.address/city`).

A binding fills the argument it names (by the document's name or the argument's name) after the check.
A bound argument disappears from the input schema, and a call that supplies it anyway is refused.
Header, query and cookie bindings that match no argument are still sent (a tenant header, say); path
and body bindings that match nothing are ignored, since a client's bindings apply to every tool of an API.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._errors import ArgumentError, ErrorCode
from ._encode import name_key, scalar
from ._paths import format_path

if TYPE_CHECKING:  # a type only: the check's worker process (call/_offload.py) loads no tools
    from ..tools import Tool

Json = Any


@dataclass(frozen=True, slots=True)
class Extra:
    """A bound value for a header, query or cookie the document does not declare (`sent`), or, with
    `sent=False`, the name of a bound parameter or body field the document does declare. Either way the
    name is the gateway's: no key of an object the agent sends may spread into it (a `form`/`explode`
    query or cookie object, a form body field)."""

    location: str
    name: str
    value: Json
    sent: bool = True


@dataclass(frozen=True, slots=True)
class BindingPlan:
    top: tuple[tuple[str, Json], ...]  # argument name -> value
    nested: tuple[tuple[str, tuple[str, ...], Json], ...]  # argument name, path inside it, value
    extras: tuple[Extra, ...]

    @property
    def key(self) -> tuple[tuple[str, ...], ...]:
        return (
            tuple(name for name, _ in self.top),
            *((name, *path) for name, path, _ in self.nested),
        )


EMPTY = BindingPlan((), (), ())


def plan_bindings(tool: Tool, bindings: Mapping[str, Json]) -> BindingPlan:
    if not bindings:
        return EMPTY
    top: dict[str, Json] = {}
    nested: list[tuple[str, tuple[str, ...], Json]] = []
    extras: list[Extra] = []
    for target, value in bindings.items():
        location, _, name = str(target).partition(".")
        if location == "body":
            first, *rest = name.split("/")
            if tool.body is not None and tool.body.whole:
                nested.append(("body", (first, *rest), value))
                if not rest:
                    extras.append(Extra("body", first, None, sent=False))
                continue
            argument = _match(tool, "body", first)
            if argument is None:
                continue
            if rest:
                nested.append((argument, tuple(rest), value))
            else:
                top[argument] = value
                extras.append(Extra("body", _original(tool, argument), None, sent=False))
            continue
        argument = _match(tool, location, name)
        if argument is not None:
            top[argument] = value
            if location in ("query", "cookie"):
                # No object the agent sends may spread a key into this name (see `_build._spread`).
                extras.append(Extra(location, _original(tool, argument), None, sent=False))
        elif location in ("header", "query", "cookie"):
            extras.append(Extra(location, name, value))
    return BindingPlan(tuple(top.items()), tuple(nested), tuple(extras))


def _original(tool: Tool, argument: str) -> str:
    return next((a.original for a in tool.arguments if a.name == argument), argument)


def _match(tool: Tool, location: str, name: str) -> str | None:
    for argument in tool.arguments:
        if argument.location == location and name in (argument.original, argument.name):
            return argument.name
    lowered = name.lower()
    if location in ("header", "cookie", "query"):
        for argument in tool.arguments:
            if argument.location == location and argument.original.lower() == lowered:
                return argument.name
    return None


def bound_values(plan: BindingPlan) -> list[str]:
    """Every value the plan sets, as the strings that would go on the wire (the leaves of objects and
    arrays), so that a redirect can be checked for them."""
    values: list[str] = []

    def leaves(value: Json) -> None:
        if isinstance(value, dict):
            for item in value.values():
                leaves(item)
        elif isinstance(value, list):
            for item in value:
                leaves(item)
        elif value is not None:
            values.append(scalar(value))

    for _, value in plan.top:
        leaves(value)
    for _, _, value in plan.nested:
        leaves(value)
    for extra in plan.extras:
        leaves(extra.value)
    return values


def strip_schema(schema: Json, plan: BindingPlan) -> Json:
    """The input schema without the bound arguments (and bound nested body fields)."""
    if plan is EMPTY or not isinstance(schema, dict):
        return schema
    out = _unshared(schema)
    defs = out.get("$defs", {})
    for name, _ in plan.top:
        _remove(out, name)
    for name, path, _ in plan.nested:
        node = out.get("properties", {}).get(name)
        for part in path[:-1]:
            node = _resolved(node, defs)
            node = node.get("properties", {}).get(part) if isinstance(node, dict) else None
        node = _resolved(node, defs)
        if isinstance(node, dict):
            _remove(node, path[-1])
    return out


def _resolved(node: Json, defs: Mapping[str, Json]) -> Json:
    """Inline a `$ref` node in place so that removing a property does not change a shared def."""
    if isinstance(node, dict) and isinstance(node.get("$ref"), str):
        target = defs.get(node["$ref"].rsplit("/", 1)[-1])
        if isinstance(target, dict):
            inlined = _unshared(target)
            node.clear()
            node.update(inlined)
    return node


def _unshared(value: Json) -> Json:
    """A copy of `value` in which no two places are one object: a kept conversion shares equal
    subtrees (`tools/_compact.py`), and removing a field at one place must not remove it at another."""
    if isinstance(value, dict):
        return {key: _unshared(member) for key, member in value.items()}
    if isinstance(value, list):
        return [_unshared(member) for member in value]
    return value


def _remove(node: dict[str, Json], name: str) -> None:
    properties = node.get("properties")
    if isinstance(properties, dict):
        properties.pop(name, None)
    required = node.get("required")
    if isinstance(required, list) and name in required:
        node["required"] = [item for item in required if item != name]
        if not node["required"]:
            del node["required"]


def refuse_bound(arguments: Mapping[str, Json], plan: BindingPlan) -> None:
    """A call may not supply what a binding sets."""
    problems: list[str] = []
    for name, _ in plan.top:
        if name in arguments:
            problems.append(f"{name}: is set by the gateway and may not be sent")
    for name, path, _ in plan.nested:
        for found in _spellings(arguments.get(name), path, (name,)):
            problems.append(f"{format_path(found)}: is set by the gateway and may not be sent")
    if problems:
        error = ArgumentError(problems)
        error.code = ErrorCode.ARGUMENT_BOUND
        raise error


def _spellings(node: Json, path: tuple[str, ...], at: tuple[str, ...]) -> list[tuple[str, ...]]:
    """Where `path` is present under `node`, each step matched as a lenient server would match a
    field name (trimmed, case-insensitive): `Country` or `"country "` beside a bound `country` would
    otherwise reach the API next to the bound value, and some APIs read the last or either one."""
    if not path:
        return [at] if node is not None else []
    if not isinstance(node, dict):
        return []
    wanted = name_key(path[0])
    found: list[tuple[str, ...]] = []
    for key, child in node.items():
        if isinstance(key, str) and name_key(key) == wanted:
            found += _spellings(child, path[1:], (*at, key))
    return found


def apply_bindings(arguments: Mapping[str, Json], plan: BindingPlan) -> dict[str, Json]:
    out = dict(arguments)
    for name, value in plan.top:
        out[name] = value
    for name, path, value in plan.nested:
        node = out.get(name)
        node = copy.deepcopy(node) if isinstance(node, dict) else {}
        out[name] = node
        for part in path[:-1]:
            child = node.get(part)
            if not isinstance(child, dict):
                child = {}
                node[part] = child
            node = child
        node[path[-1]] = value
    return out
