"""Each tool name as a Python function name of `api`: valid, stable, and two that clash told apart."""

from __future__ import annotations

import keyword

import pytest

from specbridge.codemode import Names, python_name


@pytest.mark.parametrize(
    ("tool", "name"),
    [
        ("getOrder", "getOrder"),
        ("products.update", "products_update"),
        ("list-orders", "list_orders"),
        ("3dSecure", "op_3dSecure"),
        ("_private", "op_private"),
        ("class", "class_"),
        ("match", "match_"),
    ],
)
def test_a_tool_name_becomes_a_python_name(tool: str, name: str) -> None:
    assert python_name(tool) == name
    assert name.isidentifier() and not keyword.iskeyword(name) and not name.startswith("_")


def test_names_that_clash_are_told_apart_in_the_toolsets_order_and_map_back() -> None:
    names = Names(["a.b", "a-b", "a_b"])
    assert [names.of(tool) for tool in ("a.b", "a-b", "a_b")] == ["a_b", "a_b_2", "a_b_3"]
    assert names.tool("a_b_2") == "a-b" and names.tool("nope") is None
