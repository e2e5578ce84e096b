"""The one fingerprint of a call: what makes two calls "the same call" for an approval, an idempotency
key and a running long call alike, made once per call in one canonical form (JSON with every object's
keys sorted: equal JSON, equal bytes).

It covers the API, the tool, the client, the arguments (without `idempotency_key`), the values the
gateway adds (the config's bindings and the derived key of the document's own key field), the agent's
idempotency key when it gave one (two keys are two calls, as the agent meant them), and the tool's
operation: a hash of what turns arguments into the request (method, path, the map from each argument to
its place in the request, the body's media type and encoding, the headers the document fixes, the base
URL). A reload that changes the operation changes the fingerprint, so an approval given for the old
operation is never used to send the new one.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from .._json import dumps_bytes
from ..tools import Tool

Json = Any


def operation_digest(tool: Tool, base_url: str | None) -> str:
    """A hash of the tool's operation as the gateway sends it (not its description or schema)."""
    body = tool.body
    definition = [
        tool.operation.method,
        tool.operation.path,
        base_url,
        [
            [a.name, a.location, a.original, a.style, a.explode, a.allow_reserved, a.content_type]
            for a in tool.arguments
        ],
        None if body is None else [body.content_type, body.whole, body.encoding],
        [list(header) for header in tool.fixed_headers],
        tool.accept,
    ]
    return hashlib.sha256(dumps_bytes(definition, sort_keys=True)).hexdigest()


def fingerprint(
    scope: tuple[str, str, str],
    arguments: Mapping[str, Json],
    bound: Mapping[str, Json],
    tool: Tool,
    base_url: str | None,
    *,
    key: str | None = None,
) -> str:
    """The call `scope` (api, client, tool) makes with `arguments` and `bound` values, through `tool`'s
    operation as sent under `base_url`, under the agent's idempotency `key` (its store name) if any."""
    operation = operation_digest(tool, base_url)
    parts = (
        [*scope, arguments, bound, operation] if key is None else [*scope, arguments, bound, operation, key]
    )
    return hashlib.sha256(dumps_bytes(parts, sort_keys=True)).hexdigest()
