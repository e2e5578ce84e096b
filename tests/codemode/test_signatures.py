"""A tool as a typed Python signature: keyword-only arguments (required first), JSON Schema types as
Python's, names that are no Python names passed as `**{…}`, what it returns, all bounded."""

from __future__ import annotations

from pathlib import Path

from specbridge import convert, load_document
from specbridge.codemode import Names, signature
from specbridge.codemode._signatures import python_type
from specbridge.tools import ToolSet
from tests.support.codemode import SPEC


def shop(folder: Path) -> ToolSet:
    (folder / "shop.yaml").write_text(SPEC, encoding="utf-8")
    return convert(load_document(str(folder / "shop.yaml")))


def test_a_signature_reads_as_python_with_its_description_and_answer_keys(tmp_path: Path) -> None:
    toolset = shop(tmp_path)
    names = Names(tool.name for tool in toolset.tools)
    listed, found = toolset.get("listOrders"), toolset.get("findCustomers")
    assert listed is not None and found is not None
    text = signature(names.of(listed.name), listed, listed.input_schema)
    assert text.startswith("def listOrders(*, customerId: str) -> dict:\n")
    assert "A customer's orders" in text and "Returns: {items}" in text
    compile(text, "signature", "exec")
    assert "-> list:" in signature("findCustomers", found, found.input_schema)


def test_an_argument_that_is_no_python_name_is_passed_as_a_keyword_mapping(tmp_path: Path) -> None:
    tool = shop(tmp_path).tools[0]
    schema = {
        "type": "object",
        "properties": {
            "Idempotency-Key": {"type": "string"},
            "limit": {"type": "integer", "description": "At most."},
        },
        "required": ["Idempotency-Key"],
    }
    text = signature("op", tool, schema)
    assert "def op(*, limit: int | None = None, **arguments: Any)" in text
    assert '"Idempotency-Key": str (required)' in text and "limit: At most." in text
    compile(text, "signature", "exec")


def test_json_schema_types_become_python_types() -> None:
    assert python_type({"type": "string", "enum": ["a", "b"]}) == "Literal['a', 'b']"
    assert python_type({"type": ["integer", "null"]}) == "int | None"
    assert python_type({"type": "array", "items": {"type": "number"}}) == "list[float]"
    assert python_type({"anyOf": [{"type": "string"}, {"type": "object"}]}) == "str | dict"
    assert python_type({"$ref": "#/$defs/Money"}, {"$defs": {"Money": {"type": "object"}}}) == "dict"
    assert python_type({"not": {}}) == "Any"
    deep: dict[str, object] = {"type": "string"}
    for _ in range(10):
        deep = {"type": "array", "items": deep}
    assert python_type(deep).count("list[") <= 5
