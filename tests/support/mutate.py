"""A seeded generator of arguments for a tool's input schema: often right, often wrong in type, shape or
size (for the gateway fuzz and the checker's differential test)."""

from __future__ import annotations

import random
from typing import Any

ODD_VALUES: list[Any] = [
    None,
    True,
    0,
    -1,
    2**63,
    2**70,
    1.5,
    "",
    "x" * 300,
    "\u00e9\U0001f600",
    [],
    {},
    [{}] * 40,
]


def mutate(schema: Any, rng: random.Random, depth: int = 0) -> Any:
    """A value for `schema`: often right, often of the wrong type, shape or size."""
    if depth > 5 or not isinstance(schema, dict) or rng.random() < 0.15:
        return rng.choice(ODD_VALUES)
    for union in ("anyOf", "oneOf"):
        if isinstance(schema.get(union), list) and schema[union]:
            return mutate(rng.choice(schema[union]), rng, depth + 1)
    kind = schema.get("type")
    if kind == "object" or "properties" in schema:
        properties = schema.get("properties", {})
        names = list(properties)
        chosen = rng.sample(names, k=min(len(names), rng.randint(0, 6)))
        value = {name: mutate(properties[name], rng, depth + 1) for name in chosen}
        if rng.random() < 0.1:
            value[rng.choice(["extra", "", "a/b", "\u00e9"])] = rng.choice(ODD_VALUES)
        return value
    if kind == "array":
        count = rng.choice([0, 1, 3, 300]) if rng.random() < 0.9 else 2_000
        item = mutate(schema.get("items"), rng, depth + 1)
        return [item] * count
    if isinstance(schema.get("enum"), list) and schema["enum"] and rng.random() < 0.7:
        return rng.choice(schema["enum"])
    return {"string": "text", "integer": rng.randint(-3, 3), "number": 0.5, "boolean": False}.get(
        kind if isinstance(kind, str) else "", "text"
    )
