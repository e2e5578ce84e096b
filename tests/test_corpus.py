"""Every real-world document in ../shared/corpus converts into valid, uniquely named tools."""

from __future__ import annotations

import re

import jsonschema_rs
import pytest

from tests.support.corpus import ABSENT, MANIFEST, converted

MCP_NAME = re.compile(r"[A-Za-z0-9_.-]{1,128}")
PORTABLE = re.compile(r"[a-zA-Z0-9_-]{1,64}")

if not MANIFEST:
    pytest.skip(ABSENT, allow_module_level=True)

documents = pytest.mark.parametrize("name", sorted(MANIFEST))


@documents
def test_every_non_deprecated_operation_becomes_one_tool(name: str) -> None:
    row = MANIFEST[name]
    tool_set = converted(name)
    expected = int(row["operations"]) - int(row["deprecated_ops"])
    assert len(tool_set.tools) == expected
    assert len(tool_set.tools) == sum(not op.deprecated for op in tool_set.document.operations)


@documents
def test_names_are_unique_valid_mcp_names_with_portable_forms(name: str) -> None:
    tools = converted(name).tools
    names = [tool.name for tool in tools]
    portables = [tool.portable_name for tool in tools]
    assert len(set(names)) == len(names)
    assert len(set(portables)) == len(portables)
    assert [n for n in names if not MCP_NAME.fullmatch(n)] == []
    assert [n for n in portables if not PORTABLE.fullmatch(n)] == []


@documents
def test_every_input_schema_is_valid_json_schema_2020_12(name: str) -> None:
    invalid = [
        tool.name for tool in converted(name).tools if not jsonschema_rs.meta.is_valid(tool.input_schema)
    ]
    assert invalid == []
    invalid_outputs = [
        tool.name
        for tool in converted(name).tools
        if tool.output_schema is not None and not jsonschema_rs.meta.is_valid(tool.output_schema)
    ]
    assert invalid_outputs == []
