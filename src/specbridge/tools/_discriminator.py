"""Discriminated `oneOf`/`anyOf` inputs: each branch states its own discriminator value.

A model that picks a branch then fills all of it: the branch pins the discriminator property (`const`,
or `enum` when a mapping names it more than once) and requires it. The value is, in order: the branch's
entries in `discriminator.mapping`; the one value the branch itself allows; the name of the schema the
branch refers to (OpenAPI's implicit mapping), unless the branch lists its allowed values and that name
is not among them (real documents often pin values such as `text` on a schema called `TextPart`).
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from ..document import UnresolvedRef

if TYPE_CHECKING:
    from ._schema import SchemaShaper

Json = Any
_MAX_DEPTH = 16


def pin_discriminator(shaper: SchemaShaper, value: dict[str, Any], base: str, out: dict[str, Any]) -> None:
    """Rewrite the shaped branches in `out` (new dicts: shaped schemas are shared, never mutated)."""
    discriminator = value["discriminator"]
    prop = discriminator.get("propertyName")
    if not isinstance(prop, str) or not prop:
        return
    mapped = _mapped_values(shaper, discriminator.get("mapping"), base)
    for key in ("oneOf", "anyOf"):
        raw = value.get(key)
        shaped = out.get(key)
        if not isinstance(raw, list) or not isinstance(shaped, list):
            continue
        branches = [entry for entry in raw if isinstance(entry, dict | bool)]
        if len(branches) == len(shaped):
            out[key] = [
                _pinned(shaper, branch, shaped_branch, base, prop, mapped)
                for branch, shaped_branch in zip(branches, shaped, strict=True)
            ]


def pin_implicit(shaper: SchemaShaper, value: dict[str, Any], base: str, out: dict[str, Any]) -> None:
    """A `oneOf` without a `discriminator` whose branches each allow their own values of one property
    (Adyen's 58 payment methods, each `type: {enum: [...]}`, no two alike, none required): that
    property is required in every branch, so the model says which branch it means. Without it `{}`,
    or any object of fields several branches share, matches several branches and the API refuses it."""
    raw, shaped = value.get("oneOf"), out.get("oneOf")
    if not isinstance(raw, list) or not isinstance(shaped, list) or len(raw) != len(shaped) or len(raw) < 2:
        return
    prop = _implicit_property(shaper, raw, base)
    if prop is None:
        return
    pinned = []
    for branch in shaped:
        if not isinstance(branch, dict):
            return
        listed = branch.get("required")
        names: list[Any] = listed if isinstance(listed, list) else []
        pinned.append(branch if prop in names else {**branch, "required": [*names, prop]})
    out["oneOf"] = pinned


def _implicit_property(shaper: SchemaShaper, branches: list[Json], base: str) -> str | None:
    """The property every branch limits to values of its own (disjoint), not yet required by all."""
    _, first = shaper.resolve(branches[0], base)
    candidates = _enum_properties(shaper, first, base, 0)
    for prop in candidates:
        seen: set[str] = set()
        everywhere_required = True
        for branch in branches:
            allowed, required = _facts(shaper, branch, base, prop, 0)
            values = {repr(item) for item in allowed or ()}
            if not values or values & seen:
                break
            seen |= values
            everywhere_required = everywhere_required and required
        else:
            if not everywhere_required:
                return prop
    return None


def _enum_properties(shaper: SchemaShaper, node: Json, base: str, depth: int) -> list[str]:
    """Names of the properties a schema limits to listed values (`enum`, `const`), through `allOf`."""
    if not isinstance(node, dict) or depth > _MAX_DEPTH:
        return []
    found: list[str] = []
    properties = node.get("properties")
    for name, prop in properties.items() if isinstance(properties, dict) else ():
        _, schema = shaper.resolve(prop, base)
        if isinstance(schema, dict) and ("const" in schema or isinstance(schema.get("enum"), list)):
            found.append(str(name))
    parts = node.get("allOf")
    for part in parts if isinstance(parts, list) else []:
        part_base, target = shaper.resolve(part, base)
        found += _enum_properties(shaper, target, part_base, depth + 1)
    return list(dict.fromkeys(found))


def _mapped_values(shaper: SchemaShaper, mapping: Json, base: str) -> dict[str, list[str]]:
    """Discriminator values by the target key of the schema they map to."""
    values: dict[str, list[str]] = {}
    if not isinstance(mapping, dict):
        return values
    for name, target in mapping.items():
        if not isinstance(target, str):
            continue
        ref = target if "#" in target or "/" in target else "#/components/schemas/" + target
        try:
            key = shaper.resolver.resolve(base, ref).key
        except UnresolvedRef:
            continue
        values.setdefault(key, []).append(str(name))
    return values


def _pinned(
    shaper: SchemaShaper, branch: Json, shaped: Json, base: str, prop: str, mapped: dict[str, list[str]]
) -> Json:
    if not isinstance(branch, dict):
        return shaped
    key = ""
    if isinstance(branch.get("$ref"), str):
        with contextlib.suppress(UnresolvedRef):
            key = shaper.resolver.resolve(base, branch["$ref"]).key
    allowed, required = _facts(shaper, branch, base, prop, 0)
    values = mapped.get(key)
    if values is None and allowed is not None and len(allowed) == 1:
        values = [str(allowed[0])]
    if values is None and key:
        implicit = key.rsplit("/", 1)[-1].replace("~1", "/").replace("~0", "~")
        if allowed is None or implicit in allowed:
            values = [implicit]
    if values is None:
        return shaped
    needs_pin = allowed is None or sorted(map(str, allowed)) != sorted(values)
    if not needs_pin and required:
        return shaped
    result: dict[str, Any] = dict(shaped) if isinstance(shaped, dict) else {}
    result.setdefault("type", "object")  # a discriminated branch is an object, whatever it inherits
    if needs_pin:
        properties = result.get("properties")
        if "$ref" not in result and isinstance(properties, dict):
            result["properties"] = {**properties, prop: _pin(properties.get(prop), values)}
        else:  # beside a `$ref` or an `allOf`: 2020-12 applies sibling keywords too
            result["properties"] = {prop: _pin(None, values)}
    names = result.get("required")
    names = names if isinstance(names, list) else []
    if prop not in names:
        result["required"] = [*names, prop]
    return result


def _facts(
    shaper: SchemaShaper, branch: Json, base: str, prop: str, depth: int
) -> tuple[list[Json] | None, bool]:
    """The values a branch allows for the property (None: any) and whether it requires it, through
    `$ref` and `allOf`."""
    base, node = shaper.resolve(branch, base)
    if not isinstance(node, dict) or depth > _MAX_DEPTH:
        return None, False
    allowed: list[Json] | None = None
    required = isinstance(node.get("required"), list) and prop in node["required"]
    properties = node.get("properties")
    if isinstance(properties, dict) and prop in properties:
        _, schema = shaper.resolve(properties[prop], base)
        if isinstance(schema, dict) and "const" in schema:
            allowed = [schema["const"]]
        elif isinstance(schema, dict) and isinstance(schema.get("enum"), list) and schema["enum"]:
            allowed = [item for item in schema["enum"] if item is not None]
    parts = node.get("allOf")
    for part in parts if isinstance(parts, list) else []:
        part_allowed, part_required = _facts(shaper, part, base, prop, depth + 1)
        required = required or part_required
        if allowed is None:
            allowed = part_allowed
    return allowed, required


def _pin(existing: Json, values: list[str]) -> dict[str, Any]:
    """The discriminator property's schema narrowed to its branch's value(s)."""
    pinned: dict[str, Any] = {"type": "string"}
    if isinstance(existing, dict) and isinstance(existing.get("description"), str):
        pinned["description"] = existing["description"]
    if len(values) == 1:
        pinned["const"] = values[0]
    else:
        pinned["enum"] = values
    return pinned
