"""The resource an operation works on, as its component schema describes it."""

from __future__ import annotations

from specbridge.document import parse_document
from specbridge.search import SearchIndex
from specbridge.search._resource import resource
from specbridge.tools import ToolSet, convert
from tests.search._shop import LEXICAL, names

CLUSTER = """
openapi: 3.1.0
info: {title: Cluster, version: '1'}
paths:
  /namespaces:
    get:
      operationId: listNamespace
      description: list or watch objects of kind Namespace
      responses:
        '200': {description: ok, content: {application/json: {schema: {$ref: '#/components/schemas/NamespaceList'}}}}
    post:
      operationId: createNamespace
      description: create a Namespace
      requestBody:
        content: {application/json: {schema: {$ref: '#/components/schemas/Namespace'}}}
      responses:
        '201': {description: ok, content: {application/json: {schema: {$ref: '#/components/schemas/Namespace'}}}}
  /namespaces/{name}:
    parameters: [{name: name, in: path, required: true, schema: {type: string}}]
    delete:
      operationId: deleteNamespace
      description: delete a Namespace
      responses: {'200': {description: ok}}
  /pods:
    post:
      operationId: createPod
      description: create a Pod
      requestBody:
        content: {application/json: {schema: {$ref: '#/components/schemas/Pod'}}}
      responses: {'201': {description: ok}}
  /jobs:
    get:
      operationId: listJobs
      description: list jobs
      responses:
        '200': {description: ok, content: {application/json: {schema: {$ref: '#/components/schemas/JobPage'}}}}
  /pins.add:
    post:
      operationId: pinsAdd
      description: Pins an item to a channel.
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: {type: object, description: Schema for successful response from pins.add method}
  /events:
    get:
      operationId: listEvents
      description: list events
      responses:
        '200':
          description: ok
          content: {application/json: {schema: {type: array, items: {$ref: '#/components/schemas/Event'}}}}
components:
  schemas:
    Namespace:
      description: Namespace provides a scope for names, a separate environment for a team.
      type: object
    NamespaceList:
      description: NamespaceList is a list of Namespaces.
      type: object
      properties:
        items: {type: array, items: {$ref: '#/components/schemas/Namespace'}}
    Pod:
      description: Pod is a collection of containers that can run on a host.
      type: object
    Job:
      description: A job runs a task to completion.
      type: object
    JobPage:
      type: object
      properties:
        object: {type: string}
        data: {type: array, items: {$ref: '#/components/schemas/Job'}}
    Event:
      description: Event is a report of something that happened in the cluster.
      type: object
"""


def cluster() -> ToolSet:
    return convert(parse_document(CLUSTER))


def described(toolset: ToolSet, name: str) -> tuple[str, str]:
    tool = next(tool for tool in toolset.tools if tool.name == name)
    return resource(toolset.document.data, tool.operation)


def test_the_resource_is_the_schema_an_operation_answers_with() -> None:
    assert described(cluster(), "createNamespace") == (
        "Namespace",
        "Namespace provides a scope for names, a separate environment for a team.",
    )


def test_a_listing_is_described_by_what_it_lists_not_by_its_list_wrapper() -> None:
    toolset = cluster()
    assert described(toolset, "listNamespace")[0] == "Namespace"  # `items` of NamespaceList
    assert described(toolset, "listJobs") == ("Job", "A job runs a task to completion.")  # `data`
    assert described(toolset, "listEvents")[0] == "Event"  # an array answer


def test_without_a_described_answer_the_request_body_names_the_resource() -> None:
    assert described(cluster(), "createPod")[0] == "Pod"


def test_an_operation_with_no_described_schema_has_no_resource_text() -> None:
    assert described(cluster(), "deleteNamespace") == ("", "")


def test_an_inline_answer_schema_describes_the_answer_not_a_resource() -> None:
    assert described(cluster(), "pinsAdd") == ("", "")


def test_what_a_resource_is_for_finds_its_tersely_described_operations() -> None:
    toolset = cluster()
    index = SearchIndex.build(toolset.tools, toolset.document.data, settings=LEXICAL)
    found = names(index, "set up a separate environment for the QA team")
    assert found[0] == "createNamespace"  # the words are only in the schema; the action picks create


def test_a_resource_description_counts_less_than_the_tools_own_name() -> None:
    toolset = cluster()
    index = SearchIndex.build(toolset.tools, toolset.document.data, settings=LEXICAL)
    assert names(index, "create a pod")[0] == "createPod"  # "namespace" in Pod's text would not win
    assert names(index, "list jobs")[0] == "listJobs"
