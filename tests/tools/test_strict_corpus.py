"""Strict exports of the real-world corpus: inside OpenAI's documented subset, and usable end to end."""

from __future__ import annotations

import pytest

from specbridge._errors import ArgumentError
from specbridge.call import Checker
from specbridge.tools import export_openai
from tests.support.corpus import ABSENT, MANIFEST, converted
from tests.support.openai_strict import model_answer, strict_problems

if not MANIFEST:
    pytest.skip(ABSENT, allow_module_level=True)

documents = pytest.mark.parametrize("name", sorted(MANIFEST))


@documents
def test_every_strict_export_is_inside_the_subset_openai_documents(name: str) -> None:
    problems = {
        entry["function"]["name"]: strict_problems(entry["function"]["parameters"])
        for entry in export_openai(converted(name), strict=True)
        if entry["function"]["strict"]
    }
    assert {tool: found for tool, found in problems.items() if found} == {}


@documents
def test_what_a_model_fills_in_under_a_strict_schema_passes_the_gateways_check(name: str) -> None:
    """Null for every optional field, the first branch of every choice, lengths as the description
    says: after the gateway drops the nulls, the tool's own input schema accepts it."""
    tool_set = converted(name)
    refused = {}
    for tool, entry in zip(tool_set.tools, export_openai(tool_set, strict=True), strict=True):
        if not entry["function"]["strict"]:
            continue
        checker = Checker(tool.input_schema)
        try:
            checker.check(checker.drop_nulls(model_answer(entry["function"]["parameters"])))
        except ArgumentError as error:
            refused[tool.name] = str(error)
    assert refused == {}
