"""Text to data: JSON or YAML (1.2 semantics), with every mapping key a string and dates left as strings."""

from __future__ import annotations

import functools
import re
from types import ModuleType
from typing import Any

import orjson

from .._errors import DocumentError, ErrorCode

_YAML_POSITION = re.compile(r"line (\d+), column (\d+)")


def parse_text(text: str, *, source: str) -> Any:
    """Parse a document's text. JSON is tried first when it looks like JSON; YAML otherwise."""
    if text.startswith("\ufeff"):
        text = text[1:]
    stripped = text.lstrip()
    if not stripped:
        raise DocumentError("the document is empty", code=ErrorCode.DOCUMENT_SYNTAX, source=source)
    if stripped[0] in "{[":
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError as error:
            if source.endswith(".json"):
                raise DocumentError(
                    f"invalid JSON: {error.msg}",
                    code=ErrorCode.DOCUMENT_SYNTAX,
                    source=source,
                    line=error.lineno,
                    column=error.colno,
                ) from None
            # YAML flow style also starts with '{'; fall through to the YAML parser.
    return _stringify_keys(_parse_yaml(text, source=source))


@functools.cache
def _yaml_rs() -> ModuleType | None:
    """The fast YAML 1.2 parser, imported on the first YAML text (5 MiB of a process that reads
    none, such as a gateway serving from its conversion cache); None where it has no wheel (PyYAML's
    C loader is the fallback)."""
    try:
        import yaml_rs
    except ImportError:  # pragma: no cover - exercised only on platforms without yaml-rs
        return None
    return yaml_rs


def _parse_yaml(text: str, *, source: str) -> Any:
    yaml_rs = _yaml_rs()
    if yaml_rs is not None:
        try:
            return yaml_rs.loads(
                text, parse_datetime=False, duplicate_key_policy=yaml_rs.DuplicateKeyPolicy.Error
            )
        except (yaml_rs.YAMLDecodeError, ValueError, RecursionError) as error:
            message = str(error)
            position = _YAML_POSITION.search(message)
            line = int(position.group(1)) if position else None
            column = int(position.group(2)) if position else None
            first_line = message.strip().splitlines()[-1] if message.strip() else "unreadable YAML"
            raise DocumentError(
                f"invalid YAML: {first_line.strip()}",
                code=ErrorCode.DOCUMENT_SYNTAX,
                source=source,
                line=line,
                column=column,
            ) from None
    return _parse_yaml_with_pyyaml(text, source=source)  # pragma: no cover


def _parse_yaml_with_pyyaml(text: str, *, source: str) -> Any:  # pragma: no cover - fallback only
    import yaml

    class Loader(yaml.CSafeLoader if hasattr(yaml, "CSafeLoader") else yaml.SafeLoader):  # type: ignore[misc]
        pass

    # YAML 1.2: timestamps stay strings and only true/false are booleans.
    Loader.yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers if tag not in _YAML11_ONLY_TAGS]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    Loader.add_implicit_resolver(
        "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
    )
    try:
        return yaml.load(text, Loader=Loader)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        raise DocumentError(
            f"invalid YAML: {getattr(error, 'problem', None) or error}",
            code=ErrorCode.DOCUMENT_SYNTAX,
            source=source,
            line=mark.line + 1 if mark else None,
            column=mark.column + 1 if mark else None,
        ) from None


_YAML11_ONLY_TAGS = {"tag:yaml.org,2002:timestamp", "tag:yaml.org,2002:bool"}


def _stringify_keys(node: Any) -> Any:
    """YAML lets `200:` be an integer key; OpenAPI means the string "200". Mutates in place.
    Written for speed (`type(x) is`, no generators): it walks every node of a 4 MB document."""
    if type(node) is not dict and type(node) is not list:  # a scalar, or None for comments only
        return node
    stack: list[Any] = [node]
    pop, push = stack.pop, stack.append
    while stack:
        current = pop()
        if type(current) is dict:
            for key in current:
                if type(key) is not str:
                    items = list(current.items())
                    current.clear()
                    for old, value in items:
                        current[old if type(old) is str else _key_text(old)] = value
                    break
            values = current.values()
        else:
            values = current
        for value in values:
            kind = type(value)
            if kind is dict or kind is list:
                push(value)
    return node


def _key_text(key: Any) -> str:
    if isinstance(key, bool):
        return "true" if key else "false"
    if key is None:
        return "null"
    return str(key)
