"""OpenAPI `links`: an answer's value named, by the document itself, for a parameter of another
operation (`parameters: {movie_id: $response.body#/results/0/id}`). Read from the operations'
responses (a `$ref` to `components/links` followed); the target is found by `operationId` or by an
`operationRef` to an operation of the same document. Only values of an answer count: a link that passes
on the request's own value, or a constant, says nothing about where the id comes from.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from urllib.parse import unquote

from ..document import ApiDocument
from ..document.pointer import find_pointer, pointer_tokens
from ._model import Tool

# target tool position -> the parameter's name in the document -> (producing tool position, field)
Links = dict[int, dict[str, list[tuple[int, str]]]]
_LOCATIONS = ("path.", "query.", "header.", "cookie.")


def document_links(document: ApiDocument, tools: Sequence[Tool]) -> Links:
    data = document.data
    if not isinstance(data, dict):
        return {}
    by_id = {tool.operation.operation_id: i for i, tool in enumerate(tools) if tool.operation.operation_id}
    by_pointer = {tool.operation.pointer: i for i, tool in enumerate(tools)}
    found: Links = {}
    for source, tool in enumerate(tools):
        operation = find_pointer(data, tool.operation.pointer)
        responses = operation.get("responses") if isinstance(operation, dict) else None
        if not isinstance(responses, dict):
            continue
        for status, response in responses.items():
            if not str(status).startswith("2"):
                continue
            response = _followed(data, response)
            links = response.get("links") if isinstance(response, dict) else None
            if not isinstance(links, dict):
                continue
            for link in links.values():
                link = _followed(data, link)
                if not isinstance(link, dict) or not isinstance(link.get("parameters"), dict):
                    continue
                target = _target(link, by_id, by_pointer)
                if target is None:
                    continue
                for name, expression in link["parameters"].items():
                    field = answer_field(expression)
                    if field is not None and isinstance(name, str):
                        original = name.split(".", 1)[1] if name.startswith(_LOCATIONS) else name
                        found.setdefault(target, {}).setdefault(original, []).append((source, field))
    return found


def answer_field(expression: Any) -> str | None:
    """`$response.body#/results/0/id` → `results[].id`; `$response.body` → `(the answer)`;
    `$response.header.Location` → `Location header`; anything else (a `$request` value, a constant) None."""
    if not isinstance(expression, str):
        return None
    text = expression.strip()
    if text.startswith("{") and text.endswith("}"):  # an expression embedded in a string: `{$response…}`
        text = text[1:-1]
    if text.startswith("$response.header."):
        return f"{text.removeprefix('$response.header.')} header"
    if not text.startswith("$response.body"):
        return None
    _, _, pointer = text.partition("#")
    parts: list[str] = []
    for token in pointer_tokens(pointer):
        if token.isdigit() or token == "-":
            if parts:
                parts[-1] += "[]"
            else:
                parts.append("[]")
        else:
            parts.append(token)
    return ".".join(parts) if parts else "(the answer)"


def _followed(data: dict[str, Any], node: Any) -> Any:
    """A `$ref` to a local component followed (a few hops); anything else as it is."""
    for _ in range(8):
        if not (
            isinstance(node, dict) and isinstance(node.get("$ref"), str) and node["$ref"].startswith("#")
        ):
            return node
        node = find_pointer(data, unquote(node["$ref"][1:]))
    return node


def _target(link: dict[str, Any], by_id: dict[str, int], by_pointer: dict[str, int]) -> int | None:
    operation_id = link.get("operationId")
    if isinstance(operation_id, str):
        return by_id.get(operation_id)
    reference = link.get("operationRef")
    if isinstance(reference, str) and reference.startswith("#"):
        return by_pointer.get(unquote(reference[1:]))
    return None
