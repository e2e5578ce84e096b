"""Small builders for conversion tests: a document from YAML text, its tools, and strict-mode checks."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import Any

import jsonschema_rs

from specbridge.document import ApiDocument, parse_document
from specbridge.tools import ConvertOptions, Tool, ToolSet, convert
from tests.support.openai_strict import strict_problems

HEADER = "openapi: 3.1.0\ninfo: {title: Test, version: '1'}\nservers: [{url: 'https://api.example.com'}]\n"


def document(body: str, *, header: str = HEADER) -> ApiDocument:
    return parse_document(header + textwrap.dedent(body))


def toolset(body: str, options: ConvertOptions | None = None, *, header: str = HEADER) -> ToolSet:
    return convert(document(body, header=header), options)


def only_tool(body: str, options: ConvertOptions | None = None) -> Tool:
    tools = toolset(body, options).tools
    assert len(tools) == 1, [tool.name for tool in tools]
    return tools[0]


def is_valid_2020_12(schema: Any) -> bool:
    return bool(jsonschema_rs.meta.is_valid(schema))


def strict_violations(schema: Any) -> list[str]:
    """Every way a schema falls outside the subset OpenAI documents for strict mode (empty: none)."""
    return strict_problems(schema)


def operation(
    path: str,
    method: str,
    operation_id: str,
    summary: str,
    *,
    parameters: Sequence[str] = (),
    body: str | None = None,
    media: str = "application/json",
    status: int = 200,
    answer: str = "OK",
) -> str:
    """One operation as lines of a document's `paths:` (YAML): `parameters` each a flow mapping, `body`
    the schema (flow YAML) of a required request body of `media`; the answer `status` is a JSON object
    described as `answer`. Append it to a document that ends in its `paths:` (`SPEC + operation(...)`)."""
    lines = [
        f"  {path}:",
        f"    {method}:",
        f"      operationId: {operation_id}",
        f"      summary: {summary}",
    ]
    if parameters:
        lines += ["      parameters:", *(f"        - {parameter}" for parameter in parameters)]
    if body is not None:
        lines += ["      requestBody:", "        required: true", "        content:", f"          {media}:"]
        lines.append(f"            schema: {body}")
    content = "{application/json: {schema: {type: object}}}"
    lines.append(f"      responses: {{'{status}': {{description: {answer}, content: {content}}}}}")
    return "\n".join(lines) + "\n"
