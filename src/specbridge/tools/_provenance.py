"""Where an id comes from: for each argument that identifies something, the operations whose answers
produce it, best first.

Three kinds of evidence, strongest first:

- `link`: the document's own OpenAPI `links` (`_links`): an answer's value named for a parameter of
  another operation.
- `resource`: an answer of the resource the path names. `/movie/{movie_id}` names a collection
  (`/movie`); an operation whose answer holds the schema `GET /movie/{movie_id}` answers with, or a
  list under the collection (`/movie/top_rated`) or a search for it (`/search/movie`) whose items carry
  the identifying field, produces `movie_id`.
- `name`: the words of the argument (`customer_id` → customer) against the words of what owns a field
  of an answer (a `Customer`'s `id`, a `customer` key's `id`).

Each producer is scored (its kind, then: a list or search, a first step that needs no id itself, a
read, a field near the top), an operation that itself needs the argument is no producer of it, and
the best few are kept. Lines for descriptions are written only for `link` and `resource` evidence, or
a `name` match of a listed field whose owner is the argument's noun exactly: "only when confident".
"""

from __future__ import annotations

import bisect
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from ..document import ApiDocument
from ._answer_fields import ID_NAMES, ID_SUFFIXES, AnswerField, FieldReader, name_words
from ._links import document_links
from ._model import Argument, Producer, Provenance, Tool

MAX_PRODUCERS = 3
LINK, RESOURCE, NAME = 100, 60, 30  # the score of each kind of evidence
SHORTER_NOUN = 15  # what a match on the noun without its last word loses
CONFIDENT = 50  # the least score a line in a description needs (a `name` match reaches it only when exact)
_PARAMETER = re.compile(r"^\{[^{}]+\}$")
_VERSION = re.compile(r"^(v\d+(\.\d+)*|\d{4}-\d{2}-\d{2}|\d+(\.\d+)*|api)$", re.IGNORECASE)
_NOT_IDENTIFYING_FORMATS = frozenset({"date", "date-time", "time", "duration", "email", "uri", "url", "byte"})


@dataclass(frozen=True, slots=True)
class Wanted:
    """One identifying argument of a tool and what would fill it."""

    argument: Argument
    noun: tuple[str, ...]  # the words of the thing it names: `payment_intent` → (payment, intent)
    fields: tuple[str, ...]  # the field names that carry it, preferred first
    kind: str  # its JSON type, "" when unknown
    strict_kind: bool  # a bare noun (`{repo}`): only a field of its own type will do
    collection: str  # for a path argument: the path before it (`/movie`), else ""


@dataclass(slots=True)
class _Candidate:
    tool: int
    field: str
    score: float
    kind: str


def provenance(tools: Sequence[Tool], document: ApiDocument) -> dict[str, tuple[Provenance, ...]]:
    """Each tool's identifying arguments with their producers, by tool name (tools without any left out)."""
    reader = FieldReader(document.resolver)
    wanted = [identifying(tool) for tool in tools]
    needs = [frozenset(_need_key(w) for w in found if w.argument.required) for found in wanted]
    producers = [_Source(tool, not need) for tool, need in zip(tools, needs, strict=True)]
    item_schema = _item_schemas(tools, reader)
    index = _FieldIndex(producers, [reader.answer(tool.operation) for tool in tools])
    links = document_links(document, tools)
    ranked: dict[tuple[object, ...], list[_Candidate]] = {}  # many tools need the same id (`{owner}`)
    result: dict[str, tuple[Provenance, ...]] = {}
    for position, tool in enumerate(tools):
        linked = links.get(position, {})
        found: list[Provenance] = []
        for want in wanted[position]:
            key = (
                want.noun,
                want.fields,
                want.strict_kind,
                want.kind,
                want.collection,
                want.argument.original,
            )
            scored = ranked.get(key)
            if scored is None:
                scored = ranked[key] = _ranked(
                    want, index, producers, needs, item_schema.get(want.collection, "")
                )
                if not scored and len(want.noun) > 1:  # `subscription_exposed_id`: a subscription's id
                    shorter = replace(want, noun=want.noun[:-1])
                    scored = ranked[key] = [
                        replace(candidate, score=candidate.score - SHORTER_NOUN)
                        for candidate in _ranked(shorter, index, producers, needs, "")
                    ]
            candidates = [
                _Candidate(source, field, LINK, "link")
                for source, field in linked.get(want.argument.original, ())
            ]
            candidates += [candidate for candidate in scored if candidate.tool != position]
            best = _best(candidates, tools)
            if best or want.argument.required:
                confident = bool(best) and best[0].score >= CONFIDENT
                found.append(Provenance(want.argument.name, best, confident))
        if found:
            result[tool.name] = tuple(found)
    return result


@dataclass(frozen=True, slots=True)
class _Source:
    """What scoring reads of a producing tool, worked out once."""

    method: str
    path: str
    nouns: tuple[str, ...]
    first: bool  # it needs no id of its own: a task's first step
    finds: bool  # a search (`/search/movie`, `/customers/search`, `lookupByEmail`)

    def __init__(self, tool: Tool, first: bool) -> None:
        object.__setattr__(self, "method", tool.operation.method)
        object.__setattr__(self, "path", "/" + "/".join(path_segments(tool.operation.path)))
        object.__setattr__(self, "nouns", tuple(_path_nouns(tool.operation.path)))
        object.__setattr__(self, "first", first)
        words = set(_path_nouns(tool.operation.path)) | set(name_words(tool.name))
        object.__setattr__(self, "finds", bool(words & _FINDING))


def _ranked(
    want: Wanted,
    index: _FieldIndex,
    sources: Sequence[_Source],
    needs: Sequence[frozenset[tuple[str, ...]]],
    item_schema: str,
) -> list[_Candidate]:
    """The best field of each producer of `want`, best first (a few more than are kept, since the tool
    that asks is no producer of its own argument)."""
    need = _need_key(want)
    best: dict[int, _Candidate] = {}
    for source, field, owner in index.candidates(want):
        if need in needs[source]:
            continue  # one that needs this very id is never a first step towards it
        scored = _score(want, sources[source], field, owner, item_schema)
        if scored is not None:
            kept = best.get(source)
            if kept is None or (scored[0], -len(field.path)) > (kept.score, -len(kept.field)):
                best[source] = _Candidate(source, field.path, *scored)
    return sorted(best.values(), key=lambda c: -c.score)[: MAX_PRODUCERS + 1]


def identifying(tool: Tool) -> tuple[Wanted, ...]:
    """The arguments of `tool` that name one thing: path parameters (other than a fixed set of values,
    a flag or a date), and arguments named like an id (`movie_id`, `taskGid`, `id`) or a uuid."""
    segments = path_segments(tool.operation.path)
    found = []
    for argument in tool.arguments:
        schema = argument.schema if isinstance(argument.schema, dict) else {}
        kind = schema.get("type") if isinstance(schema.get("type"), str) else ""
        if "enum" in schema or "const" in schema or kind in ("boolean", "object", "array"):
            continue
        if schema.get("format") in _NOT_IDENTIFYING_FORMATS:
            continue
        original = argument.original
        if argument.location != "path" and not _reference_name(original, schema):
            continue  # outside the path, only an id says it names a thing (`file_name` is a value)
        if argument.location == "body" and original.lower() in ("id", "uuid"):
            continue  # a body's own `id` is the thing's, given or changed here, not another's
        if argument.location not in ("path", "query", "body"):
            continue
        noun, fields, strict = _noun_and_fields(original, segments)
        if not noun:
            continue
        collection = ""
        if argument.location == "path" and "{" + original + "}" in segments:
            collection = "/" + "/".join(segments[: segments.index("{" + original + "}")])
        found.append(Wanted(argument, noun, fields, str(kind), strict, collection))
    return tuple(found)


def path_segments(path: str) -> list[str]:
    """The path's segments, a file extension dropped (`{Sid}.json` → `{Sid}`, `Calls.json` → `Calls`)."""
    path = path.split("#", 1)[0].split("?", 1)[0]  # Box's `/files/{file_id}#add_shared_link`
    return [_EXTENSION.sub("", segment) for segment in path.split("/") if segment]


def _reference_name(name: str, schema: dict[str, object]) -> bool:
    """A query or body argument that names a thing: an id by its name (`customer_id`, `taskGid`, `id`),
    by its format (uuid), or a noun its description calls an id (Slack's `channel`: "Conversation ID")."""
    if schema.get("format") == "uuid" or name_words(name)[-1:] in _ID_WORDS:
        return True
    description = schema.get("description")
    return isinstance(description, str) and bool(_ID_MENTION.search(description[:200]))


_EXTENSION = re.compile(r"(?<=[}A-Za-z])\.(?:json|xml)$")
_ID_MENTION = re.compile(r"\b(?:IDs?|[Ii]dentifiers?|[Ii]ds?)\b")
_FINDING = frozenset({"search", "find", "lookup", "query"})
_ID_WORDS = (("id",), ("ids",), ("gid",), ("sid",), ("uuid",))
_FIELDS_OF_SUFFIX = {
    "id": ("id",),
    "ids": ("id",),
    "gid": ("gid", "id"),
    "sid": ("sid", "id"),
    "uuid": ("uuid", "id"),
    "username": ("username", "login"),
    "login": ("login", "username"),
    "pk": ("id", "pk"),
}
_NOUN_OF_SUFFIX = {"username": ("user",), "login": ("user",)}  # the thing a one-word id names
# Names whose thing only the path tells (`/artists/{id}`): two tools needing an `id` need different ids.
_PATH_TOLD = frozenset({"id", "ids", "uuid", "gid", "sid", "key", "name", "slug", "number", "code"})


def _noun_and_fields(name: str, segments: list[str]) -> tuple[tuple[str, ...], tuple[str, ...], bool]:
    """The noun an argument names (`payment_intent_id` → payment, intent; `{id}` under `/artists` →
    artist), the answer fields that carry it, preferred first, and whether only its own type will do."""
    words = name_words(name)
    if "or" in words[1:]:  # Harbor's `project_name_or_id`: the first way to name it
        words = words[: words.index("or", 1)]
    if words and words[-1] in ID_SUFFIXES:
        suffix, noun = words[-1], words[:-1]
        fields, strict = _FIELDS_OF_SUFFIX.get(suffix, (suffix,)), False
        noun = noun or _NOUN_OF_SUFFIX.get(suffix, ())
    else:
        noun, fields, strict = words, ID_NAMES, True
    if not noun:
        noun = _segment_noun(name, segments)
    return noun, fields, strict


def _segment_noun(name: str, segments: list[str]) -> tuple[str, ...]:
    """The noun a path gives a bare `{id}`: the segment before it (`/artists/{id}` → artist)."""
    marker = "{" + name + "}"
    end = segments.index(marker) if marker in segments else len(segments)
    for segment in reversed(segments[:end]):
        if not _PARAMETER.match(segment) and not _VERSION.match(segment):
            return name_words(segment)
    return ()


def _need_key(want: Wanted) -> tuple[str, ...]:
    """What a tool that requires `want` needs: the thing it names (a bare `{id}` by its path's noun), or
    the argument's own name where the name alone says it (`username`, `movie_id`)."""
    name = want.argument.original.lower()
    if name in _PATH_TOLD:
        return (*want.noun, want.fields[0] if want.fields else "")
    return (name,)


def _item_schemas(tools: Sequence[Tool], reader: FieldReader) -> dict[str, str]:
    """For each collection path (`/movie`), the schema its item's GET (`/movie/{…}`) answers with."""
    found: dict[str, str] = {}
    for tool in tools:
        segments = path_segments(tool.operation.path)
        if tool.operation.method != "GET" or not segments or not _PARAMETER.match(segments[-1]):
            continue
        schema = reader.answer_schema(tool.operation)
        if schema:
            found.setdefault("/" + "/".join(segments[:-1]), schema)
    return found


class _FieldIndex:
    """Answer fields by the name of the field and a word of its owner, and by exact name for names
    that say what they are (`movie_id`). A field of the answer's own thing is owned by the words of the
    operation's path as well (`/search/movie`). A noun finds the words it starts (`repo`: `repository`)."""

    def __init__(self, sources: Sequence[_Source], answers: Sequence[tuple[AnswerField, ...]]) -> None:
        Entry = tuple[int, AnswerField, frozenset[str]]
        self.by_word: dict[tuple[str, str], list[Entry]] = defaultdict(list)
        self.by_name: dict[str, list[Entry]] = defaultdict(list)
        for position, (source, fields) in enumerate(zip(sources, answers, strict=True)):
            nouns = frozenset(source.nouns)
            for field in fields:
                owner = field.owner | nouns if field.top else field.owner
                name = field.name.lower()
                if name not in ID_NAMES:
                    self.by_name[name].append((position, field, owner))
                    continue
                for word in owner:
                    self.by_word[(word, name)].append((position, field, owner))
        self.words = sorted({word for word, _ in self.by_word})

    def candidates(self, want: Wanted) -> Iterable[tuple[int, AnswerField, frozenset[str]]]:
        head = want.noun[-1]
        start = bisect.bisect_left(self.words, head)
        words = [head] if len(head) < 4 else []
        if len(head) >= 4:
            for word in self.words[start:]:
                if not word.startswith(head):
                    break
                words.append(word)
        for name in want.fields:
            for word in words:
                yield from self.by_word.get((word, name), ())
        if want.argument.original.lower() not in ID_NAMES:
            yield from self.by_name.get(want.argument.original.lower(), ())


def _path_nouns(path: str) -> list[str]:
    return [
        word
        for segment in path_segments(path)
        if not _PARAMETER.match(segment) and not _VERSION.match(segment)
        for word in name_words(segment)
    ]


def _owns(noun: tuple[str, ...], owner: frozenset[str]) -> bool:
    """Every word of the noun is a word of the owner, or the start of one (`repo` of `repository`)."""
    for word in noun:
        if word not in owner and (len(word) < 4 or not any(o.startswith(word) for o in owner)):
            return False
    return True


def _score(
    want: Wanted, source: _Source, field: AnswerField, owner: frozenset[str], item_schema: str
) -> tuple[float, str] | None:
    if source.method == "DELETE":
        return None
    name = field.name.lower()
    exact_name = name == want.argument.original.lower() and name not in ID_NAMES
    if name not in want.fields and not exact_name:
        return None
    if want.strict_kind and want.kind and field.kind and want.kind != field.kind:
        return None  # `{repo}` is a string: a repository's integer `id` is not it
    if not exact_name and not _owns(want.noun, owner):
        return None
    path = source.path
    # A list whose items are named something else (`/genres/movie` lists genres) is not the thing's.
    its_own = not field.owner or _owns(want.noun, field.owner)
    if item_schema and item_schema in field.schemas:
        score, kind = RESOURCE + 10, "resource"
    elif (
        field.top
        and field.listed
        and its_own
        and want.collection
        and (path == want.collection or path.startswith(want.collection + "/"))
    ):
        score, kind = RESOURCE, "resource"
    elif (
        field.top
        and field.listed
        and field.owner
        and its_own
        and source.nouns[-len(want.noun) :] == want.noun
    ):
        score, kind = RESOURCE, "resource"  # a search or list named for the thing: `/search/movie`
    else:
        exact = want.noun[-1] in field.owner and field.listed
        score, kind = NAME + (20 if exact or exact_name else 0), "name"
    score += 8 if field.listed else 0
    score += 5 if source.first else 0
    score += 4 if source.method == "GET" else 0
    score += 6 if source.finds and field.top else 0  # a search: how a name a person says becomes an id
    score -= 2 * field.path.count(".")
    if name in want.fields:
        score -= want.fields.index(name) * (1 if want.strict_kind else 3)
    return score, kind


def _best(candidates: list[_Candidate], tools: Sequence[Tool]) -> tuple[Producer, ...]:
    best: dict[int, _Candidate] = {}
    for candidate in candidates:
        kept = best.get(candidate.tool)
        if kept is None or candidate.score > kept.score:
            best[candidate.tool] = candidate
    ranked = sorted(best.values(), key=lambda c: (-c.score, tools[c.tool].name))[:MAX_PRODUCERS]
    return tuple(Producer(tools[c.tool].name, c.field, c.kind, c.score) for c in ranked)  # type: ignore[arg-type]
