"""The kind of action a query means, and how it orders tools that match the same words."""

from __future__ import annotations

from specbridge.document import parse_document
from specbridge.search import SearchIndex, terms
from specbridge.search._document import ACTION_WORDS
from specbridge.search._intent import READ, action_stems, meant_actions
from specbridge.tools import convert
from tests.search._shop import LEXICAL, names

PODS = """
openapi: 3.1.0
info: {title: Cluster, version: '1'}
paths:
  /pods:
    get: {operationId: listPods, summary: List pods, responses: {'200': {description: ok}}}
    post: {operationId: createPod, summary: Create a pod, responses: {'201': {description: ok}}}
  /pods/{name}:
    parameters: [{name: name, in: path, required: true, schema: {type: string}}]
    get: {operationId: readPod, summary: Read a pod, responses: {'200': {description: ok}}}
    put: {operationId: replacePod, summary: Replace a pod, responses: {'200': {description: ok}}}
    patch: {operationId: patchPod, summary: Partially update a pod, responses: {'200': {description: ok}}}
    delete: {operationId: deletePod, summary: Delete a pod, responses: {'200': {description: ok}}}
  /pods/{name}/restart:
    parameters: [{name: name, in: path, required: true, schema: {type: string}}]
    post: {operationId: restartPod, summary: Restart a pod, responses: {'200': {description: ok}}}
"""
STEMS = action_stems(ACTION_WORDS)
WRITES = {"createPod", "replacePod", "patchPod", "deletePod"}


def pods() -> SearchIndex:
    toolset = convert(parse_document(PODS))
    return SearchIndex.build(toolset.tools, toolset.document.data, settings=LEXICAL)


def meant(query: str) -> frozenset[str]:
    return meant_actions(query, terms(query), STEMS)


def test_a_question_means_reading() -> None:
    for question in ("which pods are running", "is the web pod healthy", "how many pods", "it finished?"):
        assert meant(question) == READ


def test_a_question_naming_an_action_means_that_action_too() -> None:
    assert meant("how do I delete a pod") == READ | {"delete"}


def test_a_verb_names_its_action_and_update_goes_with_replace() -> None:
    assert meant("delete the web pod") == {"delete"}
    assert meant("add a pod") == {"create"}
    assert meant("change the pod's image") == {"update", "replace"}


def test_a_query_naming_no_action_means_none() -> None:
    assert meant("the web pod") == frozenset()


def test_a_question_finds_the_reading_tools_before_those_that_change_something() -> None:
    index = pods()
    for question in ("which pods are running", "is the web pod healthy"):
        top = names(index, question, limit=7)
        assert set(top[:2]) == {"listPods", "readPod"}
        assert not WRITES & set(top[:2])


def test_a_verb_puts_the_tool_doing_it_first() -> None:
    index = pods()
    assert names(index, "get rid of the web pod")[0] == "deletePod"
    assert names(index, "tear down the web pod")[0] == "deletePod"
    assert names(index, "spin up a pod")[0] == "createPod"


def test_a_tool_acting_by_a_verb_of_its_own_is_not_lowered() -> None:
    index = pods()
    assert names(index, "restart the pod")[0] == "restartPod"
    assert "restartPod" in names(index, "which pods restart")


def test_settings_is_not_the_verb_set() -> None:
    assert terms("settings") == terms("setting") != terms("set")
