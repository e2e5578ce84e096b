"""`$ref`: local, relative files and refs inside them, cycles, refs inside examples, remote refs."""

from __future__ import annotations

from pathlib import Path

import pytest

from specbridge._errors import ErrorCode
from specbridge.document import Resolver, UnresolvedRef, load_document, parse_document
from specbridge.tools import convert
from tests.support.openapi import document, is_valid_2020_12, toolset

FIXTURES = Path(__file__).parent / "fixtures"


def test_a_relative_file_ref_and_a_ref_inside_that_file_are_followed() -> None:
    loaded = load_document(FIXTURES / "refs" / "main.yaml")
    tools = {tool.name: tool for tool in convert(loaded).tools}
    add = tools["addPet"]
    assert {argument.name: argument.location for argument in add.arguments} == {
        "dryRun": "query",
        "name": "body",
        "owner": "body",
    }
    assert is_valid_2020_12(add.input_schema)


def test_a_cycle_across_files_is_kept_as_a_cycle_in_defs() -> None:
    tools = {tool.name: tool for tool in convert(load_document(FIXTURES / "refs" / "main.yaml")).tools}
    schema = tools["addPet"].input_schema
    assert set(schema["$defs"]) == {"Owner", "Pet"}
    assert schema["properties"]["owner"] == {"$ref": "#/$defs/Owner"}
    assert schema["$defs"]["Owner"]["properties"]["pets"]["items"] == {"$ref": "#/$defs/Pet"}
    assert is_valid_2020_12(schema)


def test_a_self_referencing_schema_never_recurses_forever() -> None:
    tool = toolset(
        """
        paths:
          /tree:
            post:
              requestBody:
                content:
                  application/json:
                    schema:
                      type: object
                      properties:
                        root: {$ref: '#/components/schemas/Node'}
              responses: {'200': {description: ok}}
        components:
          schemas:
            Node:
              type: object
              properties:
                children: {type: array, items: {$ref: '#/components/schemas/Node'}}
        """
    ).tools[0]
    assert tool.input_schema["properties"]["root"] == {"$ref": "#/$defs/Node"}
    assert tool.input_schema["$defs"]["Node"]["properties"]["children"]["items"] == {"$ref": "#/$defs/Node"}


def test_a_property_called_example_that_refers_back_is_still_a_cycle() -> None:
    tool = toolset(
        """
        paths:
          /a:
            post:
              requestBody:
                content:
                  application/json:
                    schema:
                      type: object
                      properties:
                        node: {$ref: '#/components/schemas/Node'}
              responses: {'200': {description: ok}}
        components:
          schemas:
            Node:
              type: object
              properties:
                example: {$ref: '#/components/schemas/Node'}
                default: {$ref: '#/components/schemas/Node'}
        """
    ).tools[0]
    assert tool.input_schema["properties"]["node"] == {"$ref": "#/$defs/Node"}
    assert tool.input_schema["$defs"]["Node"]["properties"]["example"] == {"$ref": "#/$defs/Node"}


def test_a_ref_to_ref_loop_is_an_unresolved_ref_not_a_recursion_error() -> None:
    tools = toolset(
        """
        paths:
          /a:
            post:
              requestBody:
                content:
                  application/json:
                    schema: {$ref: '#/components/schemas/A'}
              responses: {'200': {description: ok}}
        components:
          schemas:
            A: {$ref: '#/components/schemas/B'}
            B: {$ref: '#/components/schemas/A'}
        """
    )
    assert "#/components/schemas/A" in tools.unresolved_refs
    assert len(tools.tools) == 1


def test_a_ref_inside_an_example_is_data() -> None:
    loaded = document(
        """
        paths:
          /a:
            post:
              requestBody:
                content:
                  application/json:
                    schema:
                      type: object
                      properties:
                        name: {type: string}
                      example: {$ref: 'https://example.com/not-fetched'}
                    examples:
                      one: {value: {$ref: '#/nowhere'}}
              responses: {'200': {description: ok}}
        """
    )
    tools = convert(loaded)
    assert tools.unresolved_refs == {}
    assert loaded.notes == ()
    assert "example" not in tools.tools[0].input_schema["properties"]["name"]


def test_a_remote_ref_is_not_fetched_and_is_reported() -> None:
    loaded = document(
        """
        paths:
          /a:
            post:
              parameters:
                - $ref: 'https://example.com/parameters.yaml#/limit'
              requestBody:
                content:
                  application/json:
                    schema: {$ref: 'https://example.com/schemas.yaml#/Thing'}
              responses: {'200': {description: ok}}
        """
    )
    tools = convert(loaded)
    assert "fetched" in tools.unresolved_refs["https://example.com/schemas.yaml#/Thing"]
    assert any(note.rule == "ref-unresolved" and "parameters.yaml" in note.message for note in loaded.notes)
    assert tools.tools[0].argument("body") is not None


def test_a_ref_to_nothing_is_reported_not_raised() -> None:
    tools = toolset(
        """
        paths:
          /a:
            get:
              parameters: [{name: q, in: query, schema: {$ref: '#/components/schemas/Missing'}}]
              responses: {'200': {description: ok}}
        """
    )
    assert "#/components/schemas/Missing" in tools.unresolved_refs
    assert tools.tools[0].input_schema["properties"]["q"] == {}


def test_a_file_ref_in_a_document_read_from_text_is_reported() -> None:
    tools = toolset(
        """
        paths:
          /a:
            get:
              parameters: [{name: q, in: query, schema: {$ref: 'other.yaml#/Q'}}]
              responses: {'200': {description: ok}}
        """
    )
    assert "not read from a file" in tools.unresolved_refs["other.yaml#/Q"]


def test_a_missing_referenced_file_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "api.yaml"
    path.write_text(
        "openapi: 3.1.0\ninfo: {title: T, version: '1'}\npaths:\n  /a:\n    get:\n"
        "      parameters: [{name: q, in: query, schema: {$ref: 'gone.yaml#/Q'}}]\n"
        "      responses: {'200': {description: ok}}\n",
        encoding="utf-8",
    )
    tools = convert(load_document(path))
    assert "cannot be read" in tools.unresolved_refs["gone.yaml#/Q"]


def test_the_resolver_follows_escaped_pointer_tokens() -> None:
    root = {"paths": {"/a/{b}": {"x": 1}}, "c~d": {"y": 2}}
    resolver = Resolver("<t>", root, lambda path: {})
    assert resolver.resolve("<t>", "#/paths/~1a~1%7Bb%7D").value == {"x": 1}
    assert resolver.resolve("<t>", "#/c~0d").value == {"y": 2}
    with pytest.raises(UnresolvedRef):
        resolver.resolve("<t>", "#/nowhere")


def test_a_deep_chain_of_refs_resolves_without_recursion() -> None:
    schemas = "\n".join(f"    S{i}: {{$ref: '#/components/schemas/S{i + 1}'}}" for i in range(40))
    text = (
        "openapi: 3.1.0\ninfo: {title: T, version: '1'}\npaths:\n  /a:\n    get:\n"
        "      parameters: [{name: q, in: query, schema: {$ref: '#/components/schemas/S0'}}]\n"
        "      responses: {'200': {description: ok}}\n"
        f"components:\n  schemas:\n{schemas}\n    S40: {{type: integer}}\n"
    )
    tool = convert(parse_document(text)).tools[0]
    assert tool.input_schema["properties"]["q"] == {"type": "integer"}


# -- file refs stay inside the document's folder -------------------------------------------------------

LEAK = "contents-of-a-file-outside-the-folder"


def _confined_layout(tmp_path: Path, ref: str) -> Path:
    """api/api.yaml referring to `ref`; outside/secret.yaml beside the api folder holds LEAK."""
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.yaml").write_text(
        f"Q: {{type: string, description: {LEAK}, enum: [{LEAK}]}}\n", encoding="utf-8"
    )
    (tmp_path / "api").mkdir()
    path = tmp_path / "api" / "api.yaml"
    path.write_text(
        "openapi: 3.1.0\ninfo: {title: T, version: '1'}\npaths:\n  /a:\n    get:\n"
        f"      parameters: [{{name: q, in: query, schema: {{$ref: '{ref}'}}}}]\n"
        "      responses: {'200': {description: ok}}\n",
        encoding="utf-8",
    )
    return path


def _refusal(tmp_path: Path, ref: str, path: Path | None = None) -> str:
    tools = convert(load_document(path or _confined_layout(tmp_path, ref)))
    assert LEAK not in repr([tool.input_schema for tool in tools.tools])
    assert LEAK not in repr(tools.unresolved_refs)
    return tools.unresolved_refs[ref]


def test_a_ref_climbing_out_of_the_documents_folder_is_refused_unread(tmp_path: Path) -> None:
    reason = _refusal(tmp_path, "../outside/secret.yaml#/Q")
    assert "ref-refused" in reason and "outside the document's folder" in reason


def test_an_absolute_path_ref_is_refused_unread(tmp_path: Path) -> None:
    ref = f"{tmp_path}/outside/secret.yaml#/Q"
    path = _confined_layout(tmp_path, ref)
    assert "ref-refused" in _refusal(tmp_path, ref, path)


def test_a_symlink_inside_the_folder_that_resolves_outside_is_refused_unread(tmp_path: Path) -> None:
    path = _confined_layout(tmp_path, "linked.yaml#/Q")
    (tmp_path / "api" / "linked.yaml").symlink_to(tmp_path / "outside" / "secret.yaml")
    assert "ref-refused" in _refusal(tmp_path, "linked.yaml#/Q", path)


def test_the_resolver_refuses_an_outside_ref_with_its_code(tmp_path: Path) -> None:
    loaded = load_document(_confined_layout(tmp_path, "../outside/secret.yaml#/Q"))
    with pytest.raises(UnresolvedRef) as refused:
        loaded.resolver.resolve(loaded.resolver.root_base, "../outside/secret.yaml#/Q")
    assert refused.value.code == ErrorCode.REF_REFUSED


def test_a_folder_named_in_ref_dirs_may_be_read(tmp_path: Path) -> None:
    path = _confined_layout(tmp_path, "../outside/secret.yaml#/Q")
    tools = convert(load_document(path, ref_dirs=[tmp_path / "outside"]))
    assert tools.unresolved_refs == {}
    assert tools.tools[0].input_schema["properties"]["q"]["enum"] == [LEAK]


def test_refs_between_subfolders_inside_the_documents_folder_still_resolve(tmp_path: Path) -> None:
    (tmp_path / "api" / "a").mkdir(parents=True)
    (tmp_path / "api" / "b").mkdir()
    (tmp_path / "api" / "b" / "q.yaml").write_text("Q: {type: integer}\n", encoding="utf-8")
    (tmp_path / "api" / "a" / "p.yaml").write_text("P: {$ref: '../b/q.yaml#/Q'}\n", encoding="utf-8")
    path = tmp_path / "api" / "api.yaml"
    path.write_text(
        "openapi: 3.1.0\ninfo: {title: T, version: '1'}\npaths:\n  /a:\n    get:\n"
        "      parameters: [{name: q, in: query, schema: {$ref: 'a/p.yaml#/P'}}]\n"
        "      responses: {'200': {description: ok}}\n",
        encoding="utf-8",
    )
    tools = convert(load_document(path))
    assert tools.unresolved_refs == {}
    assert tools.tools[0].input_schema["properties"]["q"] == {"type": "integer"}
