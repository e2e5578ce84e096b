"""The shipped JSON Schema: it is package data, it accepts the documented example, and its errors name
the file, the key path, what is valid and the closest valid key."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest
import yaml

from specbridge import ConfigError, ErrorCode
from specbridge.config import SCHEMA_FILE, config_from_data, config_schema

DOCS = Path(__file__).resolve().parents[2] / "docs" / "configuration.md"


def failure(data: object) -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        config_from_data(data, source="specbridge.yaml")
    assert caught.value.code is ErrorCode.CONFIG_INVALID
    return caught.value


def test_the_schema_ships_inside_the_package_and_is_a_valid_2020_12_schema() -> None:
    assert SCHEMA_FILE.parent.name == "config"
    assert SCHEMA_FILE.name.endswith(".json")
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    assert config_schema() == schema


def test_the_example_in_the_configuration_docs_passes_the_schema() -> None:
    block = re.search(r"```yaml\n(.*?)```", DOCS.read_text(encoding="utf-8"), re.S)
    assert block is not None
    example = yaml.safe_load(block.group(1))
    jsonschema.Draft202012Validator(config_schema()).validate(example)


def test_every_key_of_the_schema_says_what_is_valid_without_the_value() -> None:
    """Messages come from `x-message`; a leaf without one would fall back to a generic message."""
    missing = []

    def visit(node: object, where: str) -> None:
        if not isinstance(node, dict):
            return
        if ("type" in node or "enum" in node or "pattern" in node) and "x-message" not in node:
            missing.append(where)
        for keyword in ("properties", "$defs"):
            for name, sub in node.get(keyword, {}).items():
                visit(sub, f"{where}/{keyword}/{name}")
        for keyword in ("additionalProperties", "items", "propertyNames"):
            visit(node.get(keyword), f"{where}/{keyword}")
        for index, sub in enumerate(node.get("anyOf", [])):
            visit(sub, f"{where}/anyOf/{index}")

    visit(config_schema(), "")
    assert [where for where in missing if not where.endswith(("/items", "/anyOf/0"))] == []


@pytest.mark.parametrize(
    ("data", "key", "guess"),
    [
        (
            {"apis": {"a": {"spec": "/a.yaml", "base_ulr": "https://x.example"}}},
            "apis.a.base_ulr",
            "base_url",
        ),
        ({"apsi": {}}, "apsi", "apis"),
        ({"apis": {"a": {"spec": "/a.yaml", "tools": {"t": {"requires_aproval": True}}}}}, None, None),
        ({"apis": {"a": {"spec": "/a.yaml", "auth": {"typ": "none"}}}}, "apis.a.auth.typ", "type"),
        ({"lint": {"severty": {}}}, "lint.severty", "severity"),
    ],
)
def test_an_unknown_key_names_the_closest_valid_key(data: object, key: str | None, guess: str | None) -> None:
    error = failure(data)
    if key is None:
        key, guess = "apis.a.tools.t.requires_aproval", "requires_approval"
    assert error.key == key
    assert f"did you mean `{guess}`?" in str(error)
    assert str(error).startswith(f"specbridge.yaml: {key}: unknown key")


def test_an_unknown_key_far_from_every_valid_key_lists_them_without_a_guess() -> None:
    error = failure({"apis": {"a": {"spec": "/a.yaml", "zzz": 1}}})
    assert "did you mean" not in str(error)
    assert "valid keys here are: spec, base_url" in str(error)


def test_a_missing_required_key_is_named_with_what_it_must_be() -> None:
    error = failure({"apis": {"a": {"operations": {"op": {"url": "https://api.example.com/x"}}}}})
    assert error.key == "apis.a.operations.op.method"
    assert "is missing; it must be GET, POST, PUT, PATCH or DELETE" in str(error)


def test_an_api_with_neither_a_document_nor_operations_says_it_needs_one() -> None:
    error = failure({"apis": {"a": {"base_url": "https://api.example.com"}}})
    assert error.key == "apis.a"
    assert "`spec` (a document), `operations` (endpoints described here), or both" in str(error)


def test_a_wrong_value_in_a_list_is_named_by_its_index() -> None:
    error = failure({"lint": {"ignore": [{"rule": "depth"}, {"rule": "depth", "pointer": "paths"}]}})
    assert error.key == "lint.ignore[1].pointer"
    assert "JSON pointer" in str(error)


def test_a_binding_that_names_no_location_is_refused_on_its_key() -> None:
    error = failure({"apis": {"a": {"spec": "/a.yaml", "tools": {"t": {"bindings": {"shopId": "s"}}}}}})
    assert error.key == "apis.a.tools.t.bindings.shopId"
    assert "<location>.<name>" in str(error)


def test_an_api_name_that_cannot_be_a_path_is_refused_on_its_key() -> None:
    error = failure({"apis": {"a b": {"spec": "/a.yaml"}}})
    assert error.key == "apis.a b"
    assert "/<name>/mcp" in str(error)


def test_a_wrong_value_is_never_repeated_in_the_message() -> None:
    value = "not-a-real-value-9000"
    error = failure({"apis": {"a": {"spec": "/a.yaml", "search": value}}})
    assert error.key == "apis.a.search"
    assert value not in str(error)
    assert "on, off or auto" in str(error)


def test_a_wrong_item_in_a_list_is_explained_by_the_list() -> None:
    error = failure({"lint": {"disable": ["depth", ""]}})
    assert error.key == "lint.disable[1]"
    assert "list of rule ids" in str(error)
