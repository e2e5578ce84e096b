"""What an operation's answer hands on: the identifying fields of its 2xx JSON answer, each with where
it sits (`results[].id`), the words of what owns it (the schema's name, the key that leads to it) and
its type. Read through `$ref`, `allOf`, `oneOf`/`anyOf` and arrays, a few objects deep; each named
schema is read once per document (`FieldReader` keeps them), so a large document costs one pass.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from ..document import Operation, Resolver, UnresolvedRef

# Scalar fields an answer identifies things by, in the order an argument without a telling suffix
# (`{customer}`, `{repo}`) prefers them.
ID_NAMES = (
    "id",
    "uuid",
    "gid",
    "sid",
    "key",
    "slug",
    "login",
    "username",
    "name",
    "number",
    "code",
    "handle",
)
# The suffixes that make a name identifying (`movie_id`, `taskGid`, `AccountSid`), and the field of an
# owner's answer each one asks for.
ID_SUFFIXES = ("ids", "id", "gid", "sid", "uuid", "key", "slug", "number", "name", "login", "username", "pk")
# Keys that hold a list or an envelope rather than a named thing: the item's owner is the operation's.
GENERIC_KEYS = frozenset(
    [
        "data",
        "items",
        "results",
        "result",
        "entries",
        "records",
        "values",
        "list",
        "objects",
        "elements",
        "content",
        "nodes",
        "node",
        "edges",
        "body",
        "response",
        "payload",
        "resources",
        "hits",
        "docs",
        "collection",
        "page",
        "value",
    ]
)
# Keys whose object describes its parent rather than a thing of its own: Kubernetes' `metadata.name`
# names the pod it sits in.
TRANSPARENT_KEYS = frozenset({"metadata", "meta", "attributes", "identity"})
MAX_OBJECTS = 2  # objects below the answer's root whose fields are read (`artists.items[].id`)
MAX_FIELDS = 160  # fields kept per schema, so one very wide answer cannot cost a thousand more
MAX_BRANCHES = 8  # `oneOf`/`anyOf` branches read per schema
_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


@functools.lru_cache(maxsize=8192)
def name_words(text: str) -> tuple[str, ...]:
    """`MovieListItem` → (movie, list, item); `payment_intents` → (payment, intent): lower case,
    each made singular."""
    return tuple(singular(word.lower()) for word in _WORDS.findall(text))


def singular(word: str) -> str:
    if len(word) <= 3 or word.endswith(("ss", "us", "is")):
        return word
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "ches", "shes")):
        return word[:-2]
    return word[:-1] if word.endswith("s") else word


def id_like(name: str) -> bool:
    """A field or argument name that identifies something: `id`, `slug`, `movie_id`, `taskGid`."""
    lowered = name.lower()
    if lowered in ID_NAMES:
        return True
    split = name_words(name)
    return len(split) > 1 and split[-1] in ID_SUFFIXES


@dataclass(frozen=True, slots=True)
class AnswerField:
    path: str  # where it sits in the answer: `results[].id`, `owner.login`, `id`
    name: str  # the field's own name
    owner: frozenset[str]  # the words of the schema that holds it and of the key that leads to it
    schemas: frozenset[str]  # the `$ref` keys of the named schemas that hold it (directly, or by `allOf`)
    kind: str  # its JSON type, "" when the schema does not say
    listed: bool  # an array on the way: one of many (a list or search answer)
    top: bool  # the answer's own thing: at its root, its items, or under an envelope key (`data`)
    own: bool = True  # a field of the object being read (or of its `metadata`), not of one inside it

    def under(self, key: str, listed: bool) -> AnswerField:
        """This field as seen from the object that holds the one it sits in, under `key`."""
        prefix = key + ("[]" if listed else "")
        lowered = key.lower()
        transparent = lowered in TRANSPARENT_KEYS and not listed
        generic = not key or lowered in GENERIC_KEYS or transparent
        return AnswerField(
            f"{prefix}.{self.path}" if prefix else self.path,
            self.name,
            self.owner if not self.top or generic else self.owner.union(name_words(key)),
            self.schemas,
            self.kind,
            self.listed or listed,
            self.top and generic,
            self.own and transparent,
        )


class FieldReader:
    """Reads answers' identifying fields for one document; keeps each named schema's."""

    def __init__(self, resolver: Resolver) -> None:
        self.resolver = resolver
        self._named: dict[tuple[str, int], tuple[AnswerField, ...]] = {}
        self._reading: set[str] = set()

    def answer(self, operation: Operation) -> tuple[AnswerField, ...]:
        """The identifying fields of the operation's first 2xx JSON answer."""
        for response in sorted(operation.responses, key=lambda r: r.status):
            if not response.status.startswith("2"):
                continue
            for media in response.content:
                kind = media.content_type.lower().split(";")[0].strip()
                if media.schema is not None and (kind == "application/json" or kind.endswith("+json")):
                    return self._node(media.schema.value, media.schema.base, 0, 0)
        return ()

    def answer_schema(self, operation: Operation) -> str:
        """The `$ref` key of the named schema the first 2xx JSON answer is ("" when inline or none)."""
        for response in sorted(operation.responses, key=lambda r: r.status):
            if not response.status.startswith("2"):
                continue
            for media in response.content:
                schema = media.schema
                if (
                    schema is not None
                    and isinstance(schema.value, dict)
                    and isinstance(schema.value.get("$ref"), str)
                ):
                    try:
                        return self.resolver.resolve(schema.base, schema.value["$ref"]).key
                    except UnresolvedRef:
                        return ""
            return ""
        return ""

    def _node(self, value: object, base: str, objects: int, hops: int) -> tuple[AnswerField, ...]:
        if not isinstance(value, dict) or hops > 24:
            return ()
        ref = value.get("$ref")
        if isinstance(ref, str):
            try:
                target = self.resolver.resolve(base, ref)
            except UnresolvedRef:
                return ()
            memo = (target.key, objects)
            cached = self._named.get(memo)
            if cached is not None:
                return cached
            if target.key in self._reading:  # a cycle: its fields are read where it starts
                return ()
            self._reading.add(target.key)
            try:
                inner = self._node(target.value, target.base, objects, hops + 1)
            finally:
                self._reading.discard(target.key)
            owner = frozenset(name_words(target.pointer.rsplit("/", 1)[-1].rsplit(".", 1)[-1]))
            found = tuple(
                AnswerField(
                    field.path,
                    field.name,
                    field.owner | owner,
                    field.schemas | {target.key},
                    field.kind,
                    field.listed,
                    field.top,
                    field.own,
                )
                if field.own
                else field
                for field in inner
            )
            self._named[memo] = found
            return found
        fields: list[AnswerField] = []
        items = value.get("items")
        if isinstance(items, dict):
            fields += [field.under("", True) for field in self._node(items, base, objects, hops + 1)]
        for key in ("allOf", "oneOf", "anyOf"):
            parts = value.get(key)
            if isinstance(parts, list):
                for part in parts[:MAX_BRANCHES]:
                    fields += self._node(part, base, objects, hops + 1)
        properties = value.get("properties")
        if isinstance(properties, dict):
            for name, prop in properties.items():
                if not isinstance(name, str) or not isinstance(prop, dict):
                    continue
                kind = self._scalar(prop, base)
                if kind is not None:
                    if id_like(name):
                        fields.append(AnswerField(name, name, frozenset(), frozenset(), kind, False, True))
                elif objects < MAX_OBJECTS:
                    child, child_base, listed = self._inside(prop, base)
                    fields += [
                        field.under(name, listed)
                        for field in self._node(child, child_base, objects + 1, hops + 1)
                    ]
        return tuple(_unique(fields)[:MAX_FIELDS])

    def _scalar(self, prop: dict[str, object], base: str) -> str | None:
        """The scalar type of a property ("" when it says none), or None for an object or array."""
        try:
            _, node = self.resolver.deref(base, prop)
        except UnresolvedRef:
            return None
        if not isinstance(node, dict):
            return None
        kind = node.get("type")
        if isinstance(kind, list):
            kinds = [k for k in kind if k != "null"]
            kind = kinds[0] if len(kinds) == 1 else None
        if kind in ("string", "integer", "number"):
            return str(kind)
        if kind is None and not any(
            key in node for key in ("properties", "items", "allOf", "oneOf", "anyOf")
        ):
            return ""
        return None

    def _inside(self, prop: dict[str, object], base: str) -> tuple[object, str, bool]:
        """A property's object, or its array's items (and that it was an array), with their file."""
        try:
            found, node = self.resolver.deref(base, prop)
        except UnresolvedRef:
            return None, base, False
        if isinstance(node, dict) and node.get("type") == "array" and isinstance(node.get("items"), dict):
            return node["items"], found, True
        return prop, base, False


def _unique(fields: list[AnswerField]) -> list[AnswerField]:
    """One field per path; where `oneOf`/`anyOf` branches share one (`results[].id` of a movie, a show
    or a person), what owns it is all of theirs."""
    seen: dict[str, AnswerField] = {}
    for field in fields:
        kept = seen.get(field.path)
        if kept is None:
            seen[field.path] = field
        elif not (field.owner <= kept.owner and field.schemas <= kept.schemas):
            seen[field.path] = AnswerField(
                kept.path,
                kept.name,
                kept.owner | field.owner,
                kept.schemas | field.schemas,
                kept.kind if kept.kind == field.kind else "",
                kept.listed,
                kept.top,
                kept.own,
            )
    return list(seen.values())
