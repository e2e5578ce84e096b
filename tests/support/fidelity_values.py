"""Arguments for a tool, generated from its own input schema: one deterministic valid value per schema.

`required` mode fills only what each object requires (and, for `minProperties`, its first fields);
`all` mode fills every property down to depth 5 (objects and arrays count, as lint's `depth` counts
them) and only required ones below that.
"""

from __future__ import annotations

import base64
import functools
import math
from typing import Any

Json = Any
MAX_DEPTH = 5
_FORMATS = {
    "date": "2024-01-02",
    "date-time": "2024-01-02T03:04:05Z",
    "time": "03:04:05",  # openapi-core's `time` check refuses an offset
    "email": "a@example.com",
    "idn-email": "a@example.com",
    "uuid": "123e4567-e89b-12d3-a456-426614174000",
    "uri": "https://example.com/a",
    "url": "https://example.com/a",
    "uri-reference": "https://example.com/a",
    "iri": "https://example.com/a",
    "hostname": "example.com",
    "ipv4": "192.0.2.1",
    "ipv6": "2001:db8::1",
    "byte": base64.b64encode(b"abc").decode(),
    "binary": base64.b64encode(b"abc").decode(),
    "duration": "P1D",
    "password": "secret",
}


@functools.lru_cache(maxsize=4096)
def _from_pattern(pattern: str) -> str | None:
    """The smallest string hypothesis finds for a pattern (deterministic), or None. Without the explain
    phase: it explains failing tests (none here) and took ~1.7 s a pattern, half the fidelity test."""
    try:
        from hypothesis import HealthCheck, Phase, find, settings
        from hypothesis import strategies as st

        phases = [phase for phase in Phase if phase is not Phase.explain]
        quiet = settings(database=None, derandomize=True, max_examples=200, phases=phases,
                         suppress_health_check=list(HealthCheck))  # fmt: skip
        return str(find(st.from_regex(pattern, fullmatch=True), lambda _: True, settings=quiet))
    except Exception:
        return None


def _required(schema: Json) -> list[str]:
    found = schema.get("required") if isinstance(schema, dict) else None
    return [name for name in found if isinstance(name, str)] if isinstance(found, list) else []


class Generator:
    def __init__(self, schema: Json, mode: str) -> None:
        self.root = schema if isinstance(schema, dict) else {}
        self.mode = mode

    def arguments(self) -> dict[str, Json]:
        value = self.value(self.root, 0, 0)
        return value if isinstance(value, dict) else {}

    def _resolve(self, schema: Json) -> Json:
        for _ in range(32):
            if not isinstance(schema, dict) or not isinstance(schema.get("$ref"), str):
                return schema
            target: Json = self.root
            for part in schema["$ref"].lstrip("#/").split("/"):
                target = (
                    target.get(part.replace("~1", "/").replace("~0", "~"), {})
                    if isinstance(target, dict)
                    else {}
                )
            rest = {k: v for k, v in schema.items() if k != "$ref"}
            schema = {**target, **rest} if isinstance(target, dict) else rest
        return schema

    def _merged(self, schema: dict[str, Json]) -> dict[str, Json]:
        schema = dict(schema)
        for key in ("allOf", "oneOf", "anyOf"):
            parts = schema.pop(key, None)
            if not isinstance(parts, list) or not parts:
                continue
            if key != "allOf":
                chosen = [p for p in parts if self._resolve(p) not in ({"type": "null"},)]
                if key == "oneOf" and chosen:  # a property only other branches require stays out
                    own = set(_required(self._resolve(chosen[0])))
                    others = {n for p in chosen[1:] for n in _required(self._resolve(p))}
                    schema["\0exclude"] = sorted(others - own)
                parts = chosen[:1] or parts[:1]
            for part in parts:
                part = self._merged(self._resolve(part)) if isinstance(self._resolve(part), dict) else {}
                for name, value in part.items():
                    if name == "properties" and isinstance(schema.get("properties"), dict):
                        schema["properties"] = {**value, **schema["properties"]}
                    elif name == "required" and isinstance(schema.get("required"), list):
                        schema["required"] = [*schema["required"], *value]
                    elif name not in schema:
                        schema[name] = value
        return schema

    def value(self, schema: Json, depth: int, guard: int) -> Json:
        schema = self._resolve(schema)
        if not isinstance(schema, dict) or guard > 40:
            return "a"
        schema = self._merged(schema)
        if "const" in schema:
            return schema["const"]
        if isinstance(schema.get("enum"), list) and schema["enum"]:
            return next((v for v in schema["enum"] if v not in (None, "")), schema["enum"][0])
        kind = schema.get("type")
        if isinstance(kind, list):
            kind = next((k for k in kind if k != "null"), "null")
        if kind is None:
            if "properties" in schema:
                kind = "object"
            elif "items" in schema:
                kind = "array"
            else:
                kind = "string"
        if kind == "null":
            return None
        if kind == "boolean":
            return True
        if kind in ("integer", "number"):
            return self._number(schema, kind)
        if kind == "array":
            return self._array(schema, depth, guard)
        if kind == "object":
            return self._object(schema, depth, guard)
        return self._string(schema)

    def _object(self, schema: dict[str, Json], depth: int, guard: int) -> dict[str, Json]:
        found = schema.get("properties")
        properties: dict[str, Json] = found if isinstance(found, dict) else {}
        listed = schema.get("required")
        required = [n for n in listed if isinstance(n, str)] if isinstance(listed, list) else []
        every = self.mode == "all" and depth < MAX_DEPTH
        names = list(properties) if every else [n for n in properties if n in required]
        out: dict[str, Json] = {}
        for name in names:
            out[name] = self.value(properties[name], depth + 1, guard + 1)
        for name in required:  # required but undeclared
            if name not in out:
                out[name] = "a"
        excluded = schema.get("not")
        if isinstance(excluded, dict) and isinstance(excluded.get("required"), list):
            names = excluded["required"]
            optional = [name for name in names if name not in required]
            if names and all(name in out for name in names) and optional:
                del out[optional[-1]]  # `not: {required: [a, b]}`: never both
        for name in schema.get("\0exclude", ()):
            if name not in required:
                out.pop(name, None)
        least = schema.get("minProperties")
        for name in properties:  # `minProperties`: the first fields, as a model fills them
            if not isinstance(least, int) or len(out) >= least:
                break
            if name not in out and name not in schema.get("\0exclude", ()):
                out[name] = self.value(properties[name], depth + 1, guard + 1)
        return out

    def _array(self, schema: dict[str, Json], depth: int, guard: int) -> list[Json]:
        count = max(1, int(schema.get("minItems", 1)))
        items = schema.get("items", {})
        first = self.value(items, depth + 1, guard + 1)
        values = [first]
        resolved = self._merged(self._resolve(items)) if isinstance(self._resolve(items), dict) else {}
        enum = resolved.get("enum") if isinstance(resolved.get("enum"), list) else None
        for index in range(1, count):
            if enum and index < len(enum):
                values.append(enum[index])
            elif isinstance(first, str):
                values.append(first + str(index))
            elif isinstance(first, int | float) and not isinstance(first, bool):
                values.append(first + index)
            else:
                values.append(first)
        return values

    @staticmethod
    def _number(schema: dict[str, Json], kind: str) -> int | float:
        low = schema.get("minimum")
        high = schema.get("maximum")
        ex_low = schema.get("exclusiveMinimum")
        ex_high = schema.get("exclusiveMaximum")
        value: float = 1
        if isinstance(low, int | float):
            value = max(value, low) if low <= 1 else low
        if isinstance(ex_low, int | float) and not isinstance(ex_low, bool) and value <= ex_low:
            value = math.floor(ex_low) + 1
        if isinstance(high, int | float) and value > high:
            value = high
        if isinstance(ex_high, int | float) and not isinstance(ex_high, bool) and value >= ex_high:
            value = math.ceil(ex_high) - 1
        step = schema.get("multipleOf")
        if isinstance(step, int | float) and step > 0:
            value = math.ceil(value / step) * step
        if kind == "integer" or float(value).is_integer():
            return int(value)
        return value

    @staticmethod
    def _string(schema: dict[str, Json]) -> str:
        low = int(schema.get("minLength", 0) or 0)
        high = schema.get("maxLength")
        pattern = schema.get("pattern")
        if isinstance(pattern, str):
            found = _from_pattern(pattern)
            if found is not None and len(found) >= low and (high is None or len(found) <= high):
                return found
        text = _FORMATS.get(str(schema.get("format", "")), "")
        if schema.get("contentEncoding") == "base64":
            text = base64.b64encode(b"abc").decode()
        if not text:
            text = "a" * max(3, low)
        if len(text) < low:
            text += "a" * (low - len(text))
        if isinstance(high, int) and len(text) > high:
            text = text[:high]
        return text
