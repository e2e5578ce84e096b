"""A tool as a typed Python function signature with its description: what the search tool of code
mode hands the model, so it writes `api.getOrder(orderId="42")` the way it writes any Python.

    def getOrder(*, orderId: str, fields: list[str] | None = None) -> dict:
        \"\"\"Returns one order by its id.

        orderId: The order's id (from listOrders).
        Returns: {id, status, items, total}
        \"\"\"

Arguments are keyword-only, in the schema's order, required ones first. An argument whose name is no
Python name (`Idempotency-Key`) is passed as `**{"Idempotency-Key": "…"}`, and the docstring says so.
Types come from the tool's input schema as the caller sees it (bound arguments left out): JSON Schema
types as Python's, `enum` as `Literal`, nullable as `| None`, an object as `dict` with its keys named in
the docstring. Bounded: a few levels deep, a few hundred characters per description.
"""

from __future__ import annotations

import keyword
from collections.abc import Mapping
from typing import Any

from ..tools import Tool

Json = Any
DESCRIPTION_MAX = 1200  # characters of the tool's description
ARGUMENT_MAX = 240  # characters of one argument's description
KEYS_SHOWN = 12  # keys of an object named in the docstring
LITERALS_SHOWN = 8  # enum values in a Literal
DEPTH = 3
_SIMPLE = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "null": "None"}


def _is_name(name: str) -> bool:
    return name.isidentifier() and not keyword.iskeyword(name)


def _resolve(schema: Json, root: Json) -> Json:
    """`schema` with a local `$ref` (to the tool schema's own `$defs`) followed once."""
    if isinstance(schema, Mapping) and isinstance(schema.get("$ref"), str) and isinstance(root, Mapping):
        ref = schema["$ref"]
        if ref.startswith("#/$defs/"):
            found = (root.get("$defs") or {}).get(ref[len("#/$defs/") :])
            if isinstance(found, Mapping):
                return found
    return schema


def python_type(schema: Json, root: Json = None, depth: int = 0) -> str:
    """The Python annotation of one JSON schema (`Any` where it says nothing usable)."""
    schema = _resolve(schema, root)
    if not isinstance(schema, Mapping) or depth > DEPTH:
        return "Any"
    if "const" in schema:
        return f"Literal[{_literal(schema['const'])}]"
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        values = schema["enum"]
        shown = ", ".join(_literal(value) for value in values[:LITERALS_SHOWN])
        return f"Literal[{shown}{', ...' if len(values) > LITERALS_SHOWN else ''}]"
    for union in ("anyOf", "oneOf"):
        if isinstance(schema.get(union), list) and schema[union]:
            return _union([python_type(branch, root, depth + 1) for branch in schema[union]])
    kind = schema.get("type")
    if isinstance(kind, list):
        return _union([python_type({**schema, "type": one}, root, depth) for one in kind])
    if kind == "array":
        return f"list[{python_type(schema.get('items'), root, depth + 1)}]" if "items" in schema else "list"
    if kind == "object" or "properties" in schema:
        return "dict"
    return _SIMPLE.get(kind, "Any") if isinstance(kind, str) else "Any"


def _literal(value: Json) -> str:
    if isinstance(value, str):
        return repr(value[:60])
    if value is None or isinstance(value, bool | int | float):
        return repr(value)
    return "..."


def _union(types: list[str]) -> str:
    unique = list(dict.fromkeys(types))
    if "Any" in unique:
        return "Any"
    return " | ".join(sorted(unique, key=lambda name: name == "None"))


def _keys(schema: Json, root: Json) -> str:
    """`{id, name, …}`: the keys an object schema names, for the docstring."""
    schema = _resolve(schema, root)
    if not isinstance(schema, Mapping):
        return ""
    if schema.get("type") == "array" or "items" in schema:
        inner = _keys(schema.get("items"), root)
        return f"[{inner}, ...]" if inner else ""
    properties = schema.get("properties")
    if not isinstance(properties, Mapping) or not properties:
        return ""
    names = [str(name) for name in properties][:KEYS_SHOWN]
    more = ", ..." if len(properties) > KEYS_SHOWN else ""
    return "{" + ", ".join(names) + more + "}"


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _answer_schema(tool: Tool) -> Json:
    """The JSON schema of the tool's first successful answer, as written in the document (or None)."""
    for response in tool.operation.responses:
        if response.status.startswith("2") or response.status == "default":
            for media in response.content:
                if "json" in media.content_type and media.schema is not None:
                    return media.schema.value
            return None
    return None


def _returns(tool: Tool) -> tuple[str, str]:
    """The return annotation and the answer's keys for the docstring."""
    if tool.output_schema is not None:
        return "dict", _keys(tool.output_schema, tool.output_schema)
    schema = _answer_schema(tool)
    if isinstance(schema, Mapping) and (schema.get("type") == "array" or "items" in schema):
        return "list", ""
    return "Any", ""


def signature(name: str, tool: Tool, input_schema: Json) -> str:
    """`def name(*, …) -> …:` with its docstring, for `tool` under the caller's `input_schema`."""
    properties = input_schema.get("properties") if isinstance(input_schema, Mapping) else None
    properties = properties if isinstance(properties, Mapping) else {}
    required = set(input_schema.get("required") or ()) if isinstance(input_schema, Mapping) else set()
    ordered = sorted(properties, key=lambda argument: argument not in required)
    parameters: list[str] = []
    lines: list[str] = []
    keyed: list[str] = []
    for argument in ordered:
        schema = properties[argument]
        annotation = python_type(schema, input_schema)
        optional = argument not in required
        if _is_name(argument):
            default = " = None" if optional else ""
            if optional and "None" not in annotation.split(" | ") and annotation != "Any":
                annotation += " | None"
            parameters.append(f"{argument}: {annotation}{default}")
        else:
            keyed.append(f'"{argument}": {annotation}{"" if optional else " (required)"}')
        described = schema.get("description") if isinstance(schema, Mapping) else None
        keys = _keys(schema, input_schema)
        note = " ".join(part for part in (_short(described, ARGUMENT_MAX) if described else "", keys) if part)
        if note:
            lines.append(f"{argument}: {note}")
    if keyed:
        parameters.append("**arguments: Any")
        lines.append("Pass as **{…}: " + ", ".join(keyed))
    returns, answer_keys = _returns(tool)
    if answer_keys:
        lines.append(f"Returns: {answer_keys}")
    head = f"def {name}(" + (("*, " + ", ".join(parameters)) if parameters else "") + f") -> {returns}:"
    description = _short(tool.description or tool.title or "", DESCRIPTION_MAX)
    body = [description] if description else []
    if lines:
        body.extend(["", *lines] if body else lines)
    text = "\n".join(f"    {line}" if line else "" for line in body).lstrip() or "(no description)"
    doc = text.replace('"""', "'''")
    return f'{head}\n    """{doc}\n    """'
