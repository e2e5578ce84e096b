"""The shipped JSON Schema of `specbridge.yaml` (`specbridge.schema.json`) and its errors as messages.

A message names the file and the key path, says what is valid (the schema's `x-message` for that key,
never the value that was found) and, for an unknown key, the closest valid one. An unknown key that
looks like a secret is not repeated: the message says where it is, not what it is.
"""

from __future__ import annotations

import difflib
import functools
import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import jsonschema_rs

from .._errors import ConfigError
from ._secrets import HIDDEN, looks_like_secret, shown

SCHEMA_FILE = Path(__file__).with_name("specbridge.schema.json")
# A typo of a config key is short or close to a valid key; anything longer with no close key is hidden.
LONGEST_SHOWN_UNKNOWN_KEY = 24
_SUBSCHEMA_KEYWORDS = ("additionalProperties", "propertyNames")  # a list's message covers its items
_NAMED_SUBSCHEMAS = ("properties", "$defs")


@functools.cache
def config_schema() -> dict[str, Any]:
    """The JSON Schema (2020-12) a `specbridge.yaml` is checked against, as shipped with the package."""
    loaded: dict[str, Any] = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    return loaded


@functools.cache
def _validator() -> Any:
    return jsonschema_rs.Draft202012Validator(config_schema())


def closest(word: str, candidates: Iterable[str]) -> str | None:
    """The candidate `word` was most likely meant to be (difflib's ratio of at least 0.6), if any."""
    found = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.6)
    return found[0] if found else None


def key_path(parts: Sequence[str | int]) -> str:
    """`apis.orders.tools.t.bindings` / `lint.ignore[0].rule`; a part that looks like a secret is hidden."""
    text = ""
    for part in parts:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += ("." if text else "") + shown(part)
    return text


def validate(data: Any, source: str) -> None:
    """Raise a ConfigError for the first place where `data` does not fit the schema."""
    error = next(iter(_validator().iter_errors(data)), None)
    if error is None:
        return
    key, message = _explain(error)
    raise ConfigError(message, source=source, key=key)


def _explain(error: Any) -> tuple[str, str]:
    where = list(error.instance_path)
    keyword = error.kind.name
    node = _node(error.schema_path[:-1])
    if keyword == "additionalProperties":
        return _unknown_key(where, sorted(error.kind.unexpected)[0], list(node.get("properties", {})))
    if keyword == "required":
        name = error.kind.property
        wanted = _message(_resolve(node.get("properties", {}).get(name, {})))
        return key_path([*where, name]), "is missing" + (f"; it {wanted}" if wanted else "")
    if keyword == "propertyNames":
        name = error.kind.error.instance
        return key_path([*where, str(name)]), _nearest_message(error.schema_path)
    return key_path(where), _nearest_message(error.schema_path)


def _unknown_key(where: list[str | int], name: str, valid: list[str]) -> tuple[str, str]:
    listing = f"valid keys here are: {', '.join(valid)}"
    guess = closest(name, valid)
    if looks_like_secret(name) or (guess is None and len(name) > LONGEST_SHOWN_UNKNOWN_KEY):
        place = key_path(where) if where else "the top level"
        return key_path(where), (
            f"an unknown key under {place} is not shown ({HIDDEN}); if it is a credential, move it to an "
            f"environment variable or a file and reference it as `env:NAME` or `file:PATH`; {listing}"
        )
    hint = f" (did you mean `{guess}`?)" if guess else ""
    return key_path([*where, name]), f"unknown key{hint}; {listing}"


def _node(path: Sequence[str | int]) -> Any:
    node: Any = config_schema()
    for part in path:
        node = node[part]
    return _resolve(node)


def _resolve(node: Any) -> Any:
    while isinstance(node, dict) and "$ref" in node and "x-message" not in node:
        node = _node(str(node["$ref"]).removeprefix("#/").split("/"))
    return node


def _message(node: Any) -> str:
    return str(node.get("x-message", "")) if isinstance(node, dict) else ""


def _nearest_message(schema_path: Sequence[str | int]) -> str:
    """The `x-message` of the schema that failed, or of the one it is part of (an `anyOf` branch, a
    `$ref`), but never of the enclosing key: that would describe the wrong thing."""
    path = list(schema_path[:-1])
    while path:
        found = _message(_node(path))
        if found:
            return found
        if path[-1] in _SUBSCHEMA_KEYWORDS or (len(path) > 1 and path[-2] in _NAMED_SUBSCHEMAS):
            break
        path.pop()
    return "is not valid here"
