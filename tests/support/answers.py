"""Realistic large answers from the corpus: for each operation whose 2xx JSON answer holds a list, an
answer of N items made from the document's own response schema and examples (a property's `example`,
its enum, its format, else a value shaped by its name: ids, names, descriptions, URLs, dates), each item
different, the way a list endpoint answers. Used by bench/answers.py and the corpus test of the budget.
"""

from __future__ import annotations

import random
import string
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from specbridge.document import ApiDocument, Operation, load_document
from specbridge.tools import Tool, convert

Json = Any
CORPUS = Path(__file__).resolve().parents[2].parent.parent / "shared" / "corpus"
_WORDS = [
    "the",
    "order",
    "was",
    "created",
    "by",
    "the",
    "customer",
    "and",
    "shipped",
    "to",
    "the",
    "address",
    "given",
    "at",
    "checkout",
    "with",
    "a",
    "note",
    "for",
    "the",
    "courier",
    "about",
    "the",
    "delivery",
    "window",
    "and",
    "the",
    "invoice",
    "that",
    "follows",
    "once",
    "the",
    "payment",
    "has",
    "cleared",
    "and",
    "the",
    "account",
    "was",
    "updated",
    "by",
    "an",
    "administrator",
    "of",
    "the",
    "organization",
    "to",
    "reflect",
    "the",
    "new",
    "billing",
    "plan",
]


def corpus_folder() -> Path | None:
    for candidate in (CORPUS, Path("/work/shared/corpus")):
        if candidate.is_dir():
            return candidate
    return None


@dataclass(frozen=True, slots=True)
class ListAnswer:
    document: str
    tool: Tool
    items: int
    value: Json  # the answer as the API would send it
    list_path: tuple[str, ...]  # where the list is: () for a root array, ("data",) for {"data": [...]}


class Maker:
    """Values for one document's schemas; deterministic for a seed."""

    def __init__(self, document: ApiDocument, seed: int) -> None:
        self.document = document
        self.random = random.Random(seed)

    def deref(self, base: str, node: Json) -> tuple[str, Json]:
        for _ in range(16):
            if not (isinstance(node, dict) and isinstance(node.get("$ref"), str)):
                return base, node
            try:
                base, node = self.document.resolver.deref(base, node)
            except Exception:
                return base, {}
        return base, {}

    def merged(self, base: str, schema: Json, depth: int = 0) -> Json:
        base, schema = self.deref(base, schema)
        if not isinstance(schema, dict) or depth > 8:
            return {}
        out = {key: value for key, value in schema.items() if key not in ("allOf", "oneOf", "anyOf")}
        parts = list(schema.get("allOf") or [])
        for key in ("oneOf", "anyOf"):
            if schema.get(key):
                parts.append(schema[key][0])
        for part in parts:
            piece = self.merged(base, part, depth + 1)
            if isinstance(piece, dict):
                props = {**piece.get("properties", {}), **out.get("properties", {})}
                out = {**piece, **out}
                if props:
                    out["properties"] = props
        out["\0base"] = base
        return out

    def value(self, base: str, schema: Json, name: str, depth: int, index: int) -> Json:
        schema = self.merged(base, schema)
        base = schema.pop("\0base", base)
        for key in ("example", "default"):
            if key in schema and schema[key] is not None and not isinstance(schema[key], dict | list):
                return self._vary(schema[key], index)
        if isinstance(schema.get("examples"), list) and schema["examples"]:
            example = schema["examples"][0]
            if not isinstance(example, dict | list):
                return self._vary(example, index)
        if isinstance(schema.get("enum"), list) and schema["enum"]:
            return self.random.choice(schema["enum"])
        kind = schema.get("type")
        if isinstance(kind, list):
            kind = next((k for k in kind if k != "null"), "string")
        if kind is None:
            kind = "object" if "properties" in schema else "array" if "items" in schema else "string"
        if kind == "object":
            if depth > 3:
                return {}
            properties = schema.get("properties") or {}
            return {
                str(key): self.value(base, sub, str(key), depth + 1, index)
                for key, sub in list(properties.items())[:40]
            }
        if kind == "array":
            if depth > 3:
                return []
            count = self.random.randint(0, 3)
            return [self.value(base, schema.get("items", {}), name, depth + 1, i) for i in range(count)]
        if kind == "boolean":
            return self.random.random() < 0.5
        if kind == "integer":
            return self.random.randint(0, 10 ** self.random.randint(1, 9))
        if kind == "number":
            return round(self.random.uniform(0, 10000), 2)
        return self.string(schema, name, index)

    def _vary(self, value: Json, index: int) -> Json:
        if isinstance(value, bool) or value is None:
            return value
        if isinstance(value, int):
            return value + index
        if isinstance(value, float):
            return round(value + index * 1.5, 2)
        text = str(value)
        if len(text) > 6 and any(c.isdigit() for c in text):  # an id or a date: one per item
            return text[: -len(str(index))] + str(index) if index else text
        return text

    def string(self, schema: dict[str, Json], name: str, index: int) -> str:
        fmt = schema.get("format")
        lowered = name.lower()
        rnd = self.random
        if fmt == "date-time" or lowered.endswith(("_at", "date", "time")):
            return f"2024-{rnd.randint(1, 12):02d}-{rnd.randint(1, 28):02d}T{rnd.randint(0, 23):02d}:14:07Z"
        if fmt == "date":
            return f"2024-{rnd.randint(1, 12):02d}-{rnd.randint(1, 28):02d}"
        if fmt == "uuid":
            parts = [rnd.getrandbits(bits) for bits in (32, 16, 12, 12, 48)]
            return f"{parts[0]:08x}-{parts[1]:04x}-4{parts[2]:03x}-a{parts[3]:03x}-{parts[4]:012x}"
        if fmt in ("uri", "url") or "url" in lowered or "href" in lowered:
            return f"https://api.example.com/v1/{lowered.replace('_url', '')}/{index}"
        if fmt == "email" or "email" in lowered:
            return f"{rnd.choice(_WORDS)}.{index}@example.com"
        if lowered == "id" or lowered.endswith(("_id", "id")):
            alphabet = string.ascii_letters + string.digits
            return lowered[:3] + "_" + "".join(rnd.choice(alphabet) for _ in range(14))
        if "description" in lowered or "message" in lowered or "body" in lowered or "text" in lowered:
            return " ".join(rnd.choice(_WORDS) for _ in range(rnd.randint(6, 30))).capitalize() + "."
        if "name" in lowered or "title" in lowered or "login" in lowered:
            return f"{rnd.choice(_WORDS).capitalize()} {rnd.choice(_WORDS)} {index}"
        return rnd.choice(_WORDS) + ("" if rnd.random() < 0.5 else f"-{rnd.randint(1, 999)}")


def _json_schema(operation: Operation) -> tuple[str, Json] | None:
    for response in operation.responses:
        if not response.status.startswith("2"):
            continue
        for media in response.content:
            kind = media.content_type.split(";")[0].strip().lower()
            if (kind == "application/json" or kind.endswith("+json")) and media.schema is not None:
                return media.schema.base, media.schema.value
    return None


def _object_items(maker: Maker, base: str, schema: Json) -> Json | None:
    """The items' schema of an array of objects with properties (a list of records), else None."""
    merged = maker.merged(base, schema)
    merged.pop("\0base", None)
    if not (merged.get("type") == "array" or "items" in merged):
        return None
    items = maker.merged(base, merged.get("items", {}))
    items.pop("\0base", None)
    return merged.get("items", {}) if len(items.get("properties") or {}) >= 2 else None


def _list_path(maker: Maker, base: str, schema: Json) -> tuple[tuple[str, ...], Json] | None:
    """Where the answer's list of records is and its items' schema: the root, or a property that holds
    the answer's only list of records (an envelope such as `{"data": [...], "has_more": true}`)."""
    items = _object_items(maker, base, schema)
    if items is not None:
        return (), items
    merged = maker.merged(base, schema)
    merged.pop("\0base", None)
    found = [
        (str(key), items)
        for key, sub in (merged.get("properties") or {}).items()
        if (items := _object_items(maker, base, sub)) is not None
    ]
    return ((found[0][0],), found[0][1]) if len(found) == 1 else None


def list_answers(
    sizes: tuple[int, ...] = (10, 100, 1000), *, per_document: int = 3, seed: int = 7
) -> Iterator[ListAnswer]:
    """For each corpus document, up to `per_document` list operations, each at every size of `sizes`."""
    folder = corpus_folder()
    if folder is None:
        return
    for path in sorted(folder.glob("*")):
        if path.suffix not in (".json", ".yaml", ".yml"):
            continue
        try:
            document = load_document(path)
            tools = convert(document).tools
        except Exception:
            continue
        found = 0
        for tool in tools:
            if found >= per_document:
                break
            schema = _json_schema(tool.operation)
            if schema is None:
                continue
            maker = Maker(document, seed)
            located = _list_path(maker, *schema)
            if located is None:
                continue
            where, items = located
            found += 1
            for size in sizes:
                maker = Maker(document, seed + size)
                values = [maker.value(schema[0], items, "item", 1, index) for index in range(size)]
                if where:
                    outer = maker.value(schema[0], schema[1], "answer", 3, 0)
                    answer: Json = outer if isinstance(outer, dict) else {}
                    answer[where[0]] = values
                else:
                    answer = values
                yield ListAnswer(path.name, tool, size, answer, where)
