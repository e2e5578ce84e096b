"""The resource an operation works on, as its schema describes it.

Many documents describe an operation tersely ("create a Namespace") but describe the thing it works on
at length in its component schema ("Namespace provides a scope for Names. Use of multiple namespaces is
optional."). That description says what the resource is for, in words a person may use for it ("a
separate environment for the QA team"), and it is shared by every operation on the resource.

The resource is the component schema of the operation's success answer, else of its request body: a
`$ref` is followed within the document, an array or a list wrapper (an object whose `items` or `data`
property is an array: Kubernetes' `NamespaceList`, Stripe's and OpenAI's list objects) gives its items'
schema.
"""

from __future__ import annotations

import re
from typing import Any

from ..document import Operation
from ..document.pointer import walk_pointer

_HOPS = 8  # `$ref` chains and wrappers followed at most
_LIST_PROPERTIES = ("items", "data")
_REF_NAME = re.compile(r"[^/.]+$|[^/]+$")  # `io.k8s.api.core.v1.Namespace` → Namespace


def _follow(document_data: Any, schema: Any) -> tuple[str, Any]:
    """The schema a node names (its `$ref` followed, a lone `allOf` member taken), with the last
    reference's name."""
    name = ""
    for _ in range(_HOPS):
        if not isinstance(schema, dict):
            return name, None
        ref = schema.get("$ref")
        if isinstance(ref, str):
            if not ref.startswith("#"):
                return name, None
            match = _REF_NAME.search(ref)
            name = match.group(0) if match else name
            try:
                schema = walk_pointer(document_data, ref[1:])
            except (KeyError, IndexError, ValueError):
                return name, None
            continue
        members = schema.get("allOf")
        if isinstance(members, list) and len(members) == 1 and not schema.get("description"):
            schema = members[0]
            continue
        return name, schema
    return name, None


def _array_items(node: Any) -> Any:
    """The `items` of an array schema, else None."""
    if isinstance(node, dict) and node.get("type") == "array" and "items" in node:
        return node["items"]
    return None


def _items(document_data: Any, schema: Any) -> tuple[str, Any]:
    """What a list holds, if `schema` is an array or a list wrapper; else the schema itself."""
    name, found = _follow(document_data, schema)
    items = _array_items(found)
    if items is None and isinstance(found, dict) and isinstance(found.get("properties"), dict):
        for key in _LIST_PROPERTIES:
            items = _array_items(_follow(document_data, found["properties"].get(key))[1])
            if items is not None:
                break
    return _follow(document_data, items) if items is not None else (name, found)


def resource(document_data: Any, operation: Operation) -> tuple[str, str]:
    """The name and description of the resource `operation` answers with or takes; "" when none is
    described. Only a component schema (reached by `$ref`) is a resource: an inline answer schema
    describes the answer ("Schema for successful response from pins.add method")."""
    schemas = [
        media.schema.value
        for response in operation.responses
        if response.status.startswith("2")
        for media in response.content
        if media.schema is not None
    ]
    if operation.request_body is not None:
        schemas += [media.schema.value for media in operation.request_body.content if media.schema]
    for schema in schemas:
        name, found = _items(document_data, schema)
        if name and isinstance(found, dict):  # a component schema: an inline one describes an answer
            description = found.get("description")
            if isinstance(description, str) and description.strip():
                return name, description.strip()
    return "", ""
