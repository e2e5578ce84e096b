"""Which tool fields take a file by `file_id`, read from the operation's request body."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from specbridge.files._files import FILE_REF, file_fields, with_file_fields
from tests.files._fields import tools


def test_binary_parts_and_a_binary_raw_body_take_files_and_nothing_else_does(tmp_path: Path) -> None:
    toolset = tools(tmp_path)

    def fields(name: str) -> dict[str, str]:
        tool = toolset.get(name)
        assert tool is not None
        return dict(file_fields(tool))

    # A base64-text part is text the document reads as base64, not a file part.
    assert fields("sendForm") == {"file": "part", "picture": "part"}
    assert fields("putRaw") == {"body": "body"}
    assert fields("putText") == {}
    assert fields("postJson") == {}


def test_a_served_file_field_takes_its_old_value_or_a_file_reference(tmp_path: Path) -> None:
    tool = tools(tmp_path).get("putRaw")
    assert tool is not None
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"body": {"type": "string"}},
        "required": ["body"],
    }
    served = with_file_fields(schema, tool)
    assert served["properties"]["body"] == {"anyOf": [{"type": "string"}, FILE_REF]}
    # Its one file field may come as `attachments: [ref]` instead; the field stays required as listed.
    assert served["properties"]["attachments"]["items"] == FILE_REF
    assert served["required"] == ["body"]
    assert schema["properties"]["body"] == {"type": "string"}  # the schema given is not changed
    assert schema["required"] == ["body"]


def test_a_tool_with_two_file_fields_gets_no_attachments_form(tmp_path: Path) -> None:
    tool = tools(tmp_path).get("sendForm")
    assert tool is not None
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"file": {"type": "string"}, "picture": {"type": "string"}},
        "required": ["file"],
    }
    served = with_file_fields(schema, tool)
    assert "attachments" not in served["properties"]
    assert served["required"] == ["file"]
