"""What is searched for each tool: its words by field, each field with a weight.

A tool's own name, title and path say most about it; its tags place it in the API; its description
explains; its arguments and answer say what it touches. Each field is scored by BM25 on its own and
the field scores are added with these weights, so a description that repeats a word fifty times
cannot outweigh a name that has it once. Words of the name, title and path count once each however
often they repeat there (`PostCustomersCustomerCards` at /v1/customers/{customer}/cards).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..tools import Tool
from ._text import terms, words

FIELD_WEIGHTS: Mapping[str, float] = {
    "name": 3.0,  # name, title and path words, each once
    "tag": 1.5,
    "method": 1.0,
    "description": 0.5,
    "tag_description": 0.3,
    "argument": 0.5,
    "argument_description": 0.2,
    "answer": 0.5,
}
# The description of the resource's schema (`_resource`), scored by a BM25 of its own so that its many
# words do not change the rarity of the words of the other fields.
RESOURCE_WEIGHTS: Mapping[str, float] = {"resource": 0.3}
_PATH_PARAMETER = re.compile(r"\{[^}]*\}")
_REF_NAME = re.compile(r"[^/]+$")

# What people say for each kind of action, so "create a customer" finds `POST /customers` and "who is in
# the channel" finds a listing. The action is read from the method and the path's shape (see `action`).
ACTION_WORDS: Mapping[str, str] = {
    "list": "list all every show see find browse which who lookup",
    "get": "get retrieve read show see look detail info view",
    "create": "create add new make send start set up",
    "update": "update change edit modify set switch rename",
    "replace": "update replace set put",
    "delete": "delete remove get rid drop erase",
    "check": "check exist",
    "act": "",  # a POST to a verb of its own (`/refunds/{id}/cancel`): the verb is in the name already
}


_VERSION = re.compile(r"v\d+(\.\d+)*|\d{4}-\d{2}-\d{2}|api", re.IGNORECASE)
_SPOKEN = {
    "list": "list all",
    "get": "get one",
    "create": "create a new",
    "update": "update",
    "replace": "replace",
    "delete": "delete",
    "check": "check",
}


def structure(method: str, path: str) -> str:
    """The operation said as its action and resources: `GET /repos/{owner}/{repo}/stargazers` →
    "list all stargazers of repos"; a POST to a verb under an item says the verb (`cancel payouts`)."""
    nouns = [
        " ".join(words(segment.removesuffix(".json")))
        for segment in path.strip("/").split("/")
        if segment and not _PATH_PARAMETER.fullmatch(segment) and not _VERSION.fullmatch(segment)
    ]
    nouns = [noun for noun in nouns if noun]
    kind = action(method, path)
    if kind == "act" and nouns:
        verb, nouns = nouns[-1], nouns[:-1]
    else:
        verb = _SPOKEN.get(kind, kind)
    return f"{verb} {' of '.join(reversed(nouns[-2:]))}".strip()


def action(method: str, path: str) -> str:
    """What kind of thing an operation does, from its method and the shape of its path: a GET of a
    collection lists, of one item (the path ends in a parameter) gets; a POST to a collection creates,
    to an item updates (`POST /v1/customers/{customer}`), to a word under an item acts."""
    segments = [segment for segment in path.strip("/").split("/") if segment]
    last = segments[-1] if segments else ""
    if "." in last.removesuffix(".json"):
        return "act"  # a remote call's path (`/conversations.leave`): its name is its action
    on_item = bool(_PATH_PARAMETER.fullmatch(last.removesuffix(".json")))
    under_item = len(segments) > 1 and bool(_PATH_PARAMETER.fullmatch(segments[-2]))
    if method in ("GET", "HEAD"):
        if method == "HEAD":
            return "check"
        return "get" if on_item else "list"
    if method == "DELETE":
        return "delete"
    if method == "PATCH":
        return "update"
    if method == "PUT":
        return "replace" if on_item else "update"
    if method == "POST":
        if on_item:
            return "update"
        return "act" if under_item and not last.endswith("s") else "create"
    return "act"


@dataclass(frozen=True, slots=True)
class ToolText:
    """One tool's searchable text: weighted stems for BM25, and a short sentence for embeddings."""

    fields: dict[str, list[str]]  # field -> its stems
    tags: tuple[str, ...]
    # what a sentence-embedding model reads: what it does (title), its name and tags, its action and
    # resources, what its description says first
    sentences: tuple[str, ...]


def operation_tags(document_data: Any, tool: Tool) -> tuple[str, ...]:
    """The operation's `tags`, read from the document (the conversion keeps none)."""
    try:
        operation = document_data["paths"][tool.operation.path][tool.operation.method.lower()]
        tags = operation.get("tags")
    except (KeyError, TypeError, AttributeError):
        return ()
    if not isinstance(tags, list):
        return ()  # a document's mistake (a string, a number) names no tag
    return tuple(str(tag) for tag in tags if isinstance(tag, str | int | float))


def tag_descriptions(document_data: Any) -> dict[str, str]:
    """The document's top-level `tags` descriptions, by tag name."""
    found: dict[str, str] = {}
    listed = document_data.get("tags") if isinstance(document_data, dict) else None
    for tag in listed if isinstance(listed, list) else ():
        if isinstance(tag, dict) and isinstance(tag.get("name"), str):
            description = tag.get("description")
            found[tag["name"]] = description if isinstance(description, str) else ""
    return found


def _schema_text(schema: Any) -> tuple[str, str]:
    """A schema's title or `$ref` name, and its description (the top level only)."""
    if not isinstance(schema, dict):
        return "", ""
    name = schema.get("title") if isinstance(schema.get("title"), str) else ""
    ref = schema.get("$ref")
    if not name and isinstance(ref, str):
        match = _REF_NAME.search(ref)
        name = match.group(0) if match else ""
    description = schema.get("description")
    return str(name), description if isinstance(description, str) else ""


def _answer_names(tool: Tool) -> list[str]:
    names = []
    for response in tool.operation.responses:
        if not response.status.startswith("2"):
            continue
        for media in response.content:
            if media.schema is not None:
                name, _ = _schema_text(media.schema.value)
                if name:
                    names.append(name)
    return names


_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")


def plain(text: str) -> str:
    """Markdown links and emphasis out: `[rate limits](https://…)` → rate limits."""
    return re.sub(r"`|\*\*|__", "", _LINK.sub(r"\1", text))


def first_sentence(text: str) -> str:
    head = text.strip().split("\n\n", 1)[0]
    match = re.search(r"(?<=[.!?])\s", head)
    return head[: match.start()] if match else head[:300]


def tool_text(
    tool: Tool, tags: tuple[str, ...], descriptions: Mapping[str, str], resource: str = ""
) -> ToolText:
    fields: dict[str, list[str]] = {
        "name": sorted(
            set(
                terms(tool.name)
                + terms(tool.title or "")
                + terms(_PATH_PARAMETER.sub(" ", tool.operation.path))
            )
        ),
        "tag": [stem for tag in tags for stem in terms(tag)],
        "method": terms(ACTION_WORDS[action(tool.operation.method, tool.operation.path)]),
        "description": terms(tool.plain_description),
        "tag_description": [stem for tag in tags for stem in terms(descriptions.get(tag, ""))],
        "argument": [],
        "argument_description": [],
        "answer": [stem for name in _answer_names(tool) for stem in terms(name)],
        "resource": terms(plain(resource)),
    }
    for argument in tool.arguments:
        fields["argument"].extend(terms(argument.name))
        _, description = _schema_text(argument.schema)
        fields["argument_description"].extend(terms(description))
    does = plain(tool.title or first_sentence(tool.operation.description or tool.description))
    called = ". ".join(part for part in (" ".join(words(tool.name)), ", ".join(tags)) if part)
    explained = plain(first_sentence(tool.operation.description or tool.description)) or does
    shape = structure(tool.operation.method, tool.operation.path)
    return ToolText(fields, tags, (does, called, shape, explained))
