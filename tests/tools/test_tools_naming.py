"""Tool names: extension name, operationId, method+path; sanitised, portable, unique and stable."""

from __future__ import annotations

import json
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from specbridge.document import parse_document
from specbridge.tools import (
    PORTABLE_NAME,
    ConvertOptions,
    ToolOverride,
    convert,
    method_path_name,
    portable_name,
)
from tests.support.openapi import toolset

MCP_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,128}$")
OK = "{'200': {description: ok}}"


def names(body: str, options: ConvertOptions | None = None) -> list[str]:
    return [tool.name for tool in toolset(body, options).tools]


def test_a_get_without_operation_id_is_named_from_method_and_path() -> None:
    assert names(f"paths:\n  /search:\n    get: {{responses: {OK}}}\n") == ["get_search"]
    assert method_path_name("GET", "/users/{id}/pets") == "get_users_id_pets"


def test_the_operation_id_is_the_name() -> None:
    assert names(f"paths:\n  /a:\n    get: {{operationId: listThings, responses: {OK}}}\n") == ["listThings"]


def test_an_x_agentify_string_or_object_name_wins_over_the_operation_id() -> None:
    body = f"""
    paths:
      /a:
        get: {{operationId: one, x-agentify: agent_one, responses: {OK}}}
        post: {{operationId: two, x-agentify: {{name: agent_two}}, responses: {OK}}}
        put: {{operationId: three, x-mcp: {{name: mcp_three}}, responses: {OK}}}
        delete: {{operationId: four, x-mcp: mcp_four, responses: {OK}}}
    """
    assert names(body) == ["agent_one", "mcp_three", "agent_two", "mcp_four"]


def test_characters_outside_the_mcp_alphabet_become_underscores() -> None:
    assert names(f"paths:\n  /a:\n    get: {{operationId: 'list things/all:now', responses: {OK}}}\n") == [
        "list_things_all_now"
    ]


def test_a_dotted_name_keeps_its_dot_and_its_portable_form_does_not() -> None:
    tool = toolset(f"paths:\n  /a:\n    get: {{operationId: pets.list, responses: {OK}}}\n").tools[0]
    assert (tool.name, tool.portable_name) == ("pets.list", "pets_list")


def test_a_long_name_gets_a_stable_hashed_portable_form() -> None:
    long_id = "get" + "VeryLongOperationName" * 5
    tool = toolset(f"paths:\n  /a:\n    get: {{operationId: {long_id}, responses: {OK}}}\n").tools[0]
    assert tool.name == long_id
    assert len(tool.portable_name) == 64
    assert PORTABLE_NAME.match(tool.portable_name)
    assert tool.portable_name == portable_name(long_id)
    assert tool.portable_name.startswith(long_id[:40])


def test_duplicate_names_get_a_suffix_and_the_first_by_method_and_path_keeps_the_name() -> None:
    body = f"""
    paths:
      /b: {{get: {{operationId: same, responses: {OK}}}}}
      /a: {{get: {{operationId: same, responses: {OK}}}}}
    """
    result = names(body)
    assert result[1] == "same"
    assert re.fullmatch(r"same_[0-9a-f]{6}", result[0])


def test_a_suffix_does_not_depend_on_unrelated_operations_or_their_order() -> None:
    base = f"""
      /x: {{get: {{operationId: same, responses: {OK}}}}}
      /y: {{get: {{operationId: same, responses: {OK}}}}}
      /z: {{get: {{operationId: same, responses: {OK}}}}}
    """
    extra = f"      /unrelated: {{get: {{operationId: other, responses: {OK}}}}}\n"
    reordered = "\n".join(reversed(base.strip("\n").splitlines())) + "\n"

    def by_path(paths: str) -> dict[str, str]:
        return {tool.operation.path: tool.name for tool in toolset("paths:\n" + paths).tools}

    first = by_path(base)
    assert by_path(extra + base) == {**first, "/unrelated": "other"}
    assert by_path(reordered) == first
    assert len(set(first.values())) == 3


def test_a_configured_name_wins() -> None:
    body = f"paths:\n  /a: {{get: {{operationId: listA, responses: {OK}}}}}\n"
    tool = toolset(body, ConvertOptions(overrides={"listA": ToolOverride(name="list_everything")})).tools[0]
    assert (tool.name, tool.default_name) == ("list_everything", "listA")


def test_a_configured_name_that_collides_keeps_it_and_the_other_tool_is_suffixed() -> None:
    body = f"""
    paths:
      /a: {{get: {{operationId: listA, responses: {OK}}}}}
      /b: {{get: {{operationId: listB, responses: {OK}}}}}
    """
    result = names(body, ConvertOptions(overrides={"listB": ToolOverride(name="listA")}))
    assert result[1] == "listA"
    assert result[0].startswith("listA_")


def test_an_override_by_a_duplicated_operation_id_applies_only_to_the_tool_of_that_name() -> None:
    body = f"""
    paths:
      /a: {{get: {{operationId: same, responses: {OK}}}}}
      /b: {{get: {{operationId: same, responses: {OK}}}}}
    """
    result = names(body, ConvertOptions(overrides={"same": ToolOverride(name="renamed")}))
    assert result[0] == "renamed"
    assert result[1].startswith("same_")


def test_a_disabled_tool_is_left_out_and_listed() -> None:
    body = f"""
    paths:
      /a: {{get: {{operationId: keep, responses: {OK}}}}}
      /b: {{get: {{operationId: drop, responses: {OK}}}}}
    """
    tools = toolset(body, ConvertOptions(overrides={"drop": ToolOverride(disabled=True)}))
    assert [tool.name for tool in tools.tools] == ["keep"]
    assert tools.disabled == ("drop",)


def test_tools_are_found_by_mcp_or_portable_name() -> None:
    tools = toolset(f"paths:\n  /a: {{get: {{operationId: a.b, responses: {OK}}}}}\n")
    assert tools.get("a.b") is tools.get("a_b") is tools.tools[0]
    assert tools.get("nope") is None


_IDENTIFIERS = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=0, max_size=150
)
_SEGMENTS = st.lists(st.from_regex(r"[A-Za-z0-9_.{}~-]{1,20}", fullmatch=True), min_size=1, max_size=5)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(_SEGMENTS, st.sampled_from(["get", "post", "put", "delete"]), _IDENTIFIERS), max_size=12
    )
)
def test_names_are_always_valid_and_unique(operations: list[tuple[list[str], str, str]]) -> None:
    paths: dict[str, dict[str, object]] = {}
    for segments, method, operation_id in operations:
        item = paths.setdefault("/" + "/".join(segments), {})
        item[method] = {"responses": {"200": {"description": "ok"}}}
        if operation_id.strip():
            item[method]["operationId"] = operation_id  # type: ignore[index]
    data = {"openapi": "3.1.0", "info": {"title": "T", "version": "1"}, "paths": paths}
    tools = convert(parse_document(json.dumps(data))).tools
    mcp_names = [tool.name for tool in tools]
    portables = [tool.portable_name for tool in tools]
    assert all(MCP_NAME.match(name) for name in mcp_names)
    assert all(re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", name) for name in portables)
    assert len(set(mcp_names)) == len(mcp_names)
    assert len(set(portables)) == len(portables)


@given(st.text(min_size=1, max_size=300))
def test_the_portable_name_always_matches_the_pattern(name: str) -> None:
    portable = portable_name(name)
    assert re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", portable)
    assert portable_name(name) == portable
