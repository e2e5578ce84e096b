"""Small builders for conversion tests: a document from YAML text, its tools, and strict-mode checks."""

from __future__ import annotations

import textwrap
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
