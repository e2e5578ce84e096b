"""Pointers to lines and columns: block YAML, flow YAML, pretty-printed and minified JSON."""

from __future__ import annotations

import json

import pytest
import yaml

from specbridge.document import locate
from specbridge.document._locate import Locator

BLOCK = """\
openapi: 3.1.0   # a comment
info:
  title: Shop
paths:
  /users/{id}:
    put:
      operationId: updateUser
      description: |
        paths:
          not: a key
      parameters:
      - name: id
        in: path
      -   name: verbose
          in: query
      tags:
        - users
        - admin
  "/quoted":
    get: {operationId: q, tags: [a, b], responses: {"200": {description: ok}}}
components: {}
"""

POINTERS = [
    "/info/title",
    "/paths/~1users~1{id}/put/operationId",
    "/paths/~1users~1{id}/put/parameters/1/in",
    "/paths/~1users~1{id}/put/tags/1",
    "/paths/~1quoted/get/tags/1",
    "/paths/~1quoted/get/responses/200/description",
    "/components",
]


def at(text: str, pointer: str) -> str:
    position = locate(text, pointer)
    assert position is not None, pointer
    line, column = position
    return text.splitlines()[line - 1][column - 1 :]


def test_block_yaml_keys_and_items_are_found_on_their_own_line() -> None:
    assert locate(BLOCK, "") == (1, 1)
    assert locate(BLOCK, "/info/title") == (3, 3)
    assert locate(BLOCK, "/paths/~1users~1{id}/put/operationId") == (7, 7)
    assert locate(BLOCK, "/paths/~1users~1{id}/put/parameters/0") == (12, 7)
    assert locate(BLOCK, "/paths/~1users~1{id}/put/parameters/1/in") == (15, 11)
    assert at(BLOCK, "/paths/~1users~1{id}/put/tags/1") == "- admin"


def test_text_inside_a_block_scalar_is_not_mistaken_for_a_key() -> None:
    assert locate(BLOCK, "/paths/~1users~1{id}/put/description/not") is None
    assert locate(BLOCK, "/paths/~1users~1{id}/put/parameters") == (11, 7)


def test_flow_yaml_inside_block_yaml_is_followed() -> None:
    assert at(BLOCK, "/paths/~1quoted/get/tags/1").startswith("b]")
    assert at(BLOCK, "/paths/~1quoted/get/responses/200/description").startswith("description: ok")


def test_a_pointer_that_is_not_in_the_text_is_none() -> None:
    assert locate(BLOCK, "/paths/~1nowhere") is None
    assert locate("", "/a") is None


@pytest.mark.parametrize("indent", [2, 4, None], ids=["pretty-2", "pretty-4", "minified"])
def test_json_pointers_land_on_their_keys(indent: int | None) -> None:
    text = json.dumps(yaml.safe_load(BLOCK), indent=indent)
    for pointer in POINTERS:
        token = pointer.rsplit("/", 1)[-1]
        found = at(text, pointer)
        assert found.lstrip('"').startswith(token.replace("~1", "/")) or token.isdigit(), (pointer, found)
    assert at(text, "/paths/~1users~1{id}/put/tags/1").startswith('"admin"')


def test_a_locator_answers_many_pointers_with_the_same_positions_as_one_at_a_time() -> None:
    locator = Locator(BLOCK)
    assert locator.positions(POINTERS) == [locate(BLOCK, pointer) for pointer in POINTERS]


def test_a_byte_order_mark_and_a_document_marker_are_skipped() -> None:
    text = "\ufeff---\nopenapi: 3.1.0\ninfo:\n  title: x\n"
    assert locate(text, "/info/title") == (4, 3)


DEEP = """paths:
  /a:
    post:
      description: |
        schema:
          properties: not a key
      requestBody:
        content:
          application/json:
            schema:
              properties:
                other: {type: string}
  /b:
    post:
      requestBody:
        content:
          'application/json':
            schema:
              properties:
                "name": {type: string}
                other: {type: string}
"""


@pytest.mark.parametrize(
    ("pointer", "expected"),
    [
        ("/paths/~1a/post/requestBody/content/application~1json/schema/properties/other", (12, 17)),
        ("/paths/~1b/post/requestBody/content/application~1json/schema/properties/name", (20, 17)),
        ("/paths/~1b/post/requestBody/content/application~1json/schema/properties/other", (21, 17)),
        ("/paths/~1a/post/requestBody/content/application~1json/schema/properties/name", None),
        ("/paths/~1a/post/schema", None),  # only inside the description's block scalar
    ],
)
def test_a_deep_pointer_is_found_by_searching_each_level_once(
    pointer: str, expected: tuple[int, int] | None
) -> None:
    """One key of a mapping is found without reading the mapping whole; a key of a later sibling
    mapping, or text in a block scalar, is never taken for it; the answer is what reading every level
    whole gives (a second locator asks each level for two keys, so it reads them whole)."""
    assert Locator(DEEP).position(pointer) == expected
    whole = Locator(DEEP)
    whole.positions(["/paths/~1a/post/requestBody/x", "/paths/~1a/post/description"])
    assert whole.position(pointer) == expected
