"""A conversion made compact before it is kept (tools/_compact.py): equal values become one object."""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from specbridge.document import load_document
from specbridge.tools import ConversionCache, ConvertOptions, convert
from specbridge.tools._compact import compacted

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=40,
)


def shape(value: Any) -> Any:
    """`value` with each float's sign and type kept visible to ==, so -0.0 differs from 0.0 and 1.0 from 1."""
    if isinstance(value, dict):
        return {key: shape(member) for key, member in value.items()}
    if isinstance(value, list):
        return [shape(member) for member in value]
    if isinstance(value, float):
        return ("float", value, math.copysign(1.0, value))
    return (type(value).__name__, value)


@given(JSON)
def test_a_compacted_value_equals_the_original_and_leaves_it_unchanged(value: Any) -> None:
    before = shape(value)
    assert shape(compacted(value)) == before
    assert shape(value) == before


def test_equal_strings_objects_and_arrays_become_one_object() -> None:
    value: dict[str, Any] = {
        "a": {"type": "string", "enum": ["x", "y"]},
        "b": {"type": "string", "enum": ["x", "y"]},
        "c": ["".join(["ty", "pe"])],
    }
    made = compacted(value)
    assert made["a"] is made["b"] and made["a"]["enum"] is made["b"]["enum"]
    assert made["c"][0] is next(iter(made["a"]))  # the key "type" and the list's "type"
    assert value["a"] is not value["b"]  # the original keeps its own objects


def test_negative_zero_and_one_point_zero_stay_what_they_were() -> None:
    made = compacted([0.0, -0.0, 1, 1.0, True])
    assert [math.copysign(1.0, made[0]), math.copysign(1.0, made[1])] == [1.0, -1.0]
    assert [type(member) for member in made[2:]] == [int, float, bool]


def test_a_value_that_contains_itself_is_kept_as_it_is() -> None:
    looped: dict[str, Any] = {"name": "x"}
    looped["self"] = looped
    assert compacted(looped) is looped


class Uncopyable:
    def __init__(self) -> None:
        self.name = "x"

    def __copy__(self) -> Uncopyable:
        raise TypeError("cannot be copied")


def test_a_value_holding_what_cannot_be_copied_is_kept_as_it_is() -> None:
    value = {"a": ["same"], "b": ["same"], "odd": Uncopyable()}
    assert compacted(value) is value


class Colour(enum.Enum):
    RED = "red"


@dataclass(frozen=True, slots=True)
class Frozen:
    name: str
    schema: dict[str, Any]
    colour: Colour


def test_frozen_dataclasses_are_copied_with_their_fields_compacted_and_enums_kept() -> None:
    first, second = Frozen("a", {"type": "string"}, Colour.RED), Frozen("b", {"type": "string"}, Colour.RED)
    made = compacted((first, second))
    assert made == (first, second)
    assert made[0].schema is made[1].schema and made[0] is not first
    assert made[0].colour is Colour.RED


DOCUMENT = """\
openapi: 3.1.0
info: {title: Shop, version: "1"}
paths:
  /orders:
    post:
      operationId: createOrder
      requestBody:
        content:
          application/json:
            schema:
              type: object
              properties:
                shipping: {type: object, properties: {city: {type: string}, street: {type: string}}}
                billing: {type: object, properties: {city: {type: string}, street: {type: string}}}
      responses:
        "201": {description: Created}
"""


def test_a_kept_conversion_is_read_back_compact_and_equal_to_a_fresh_one(tmp_path: Path) -> None:
    path = tmp_path / "shop.yaml"
    path.write_text(DOCUMENT)
    cache = ConversionCache(tmp_path / "cache")
    first = cache.convert(str(path), ConvertOptions())
    again = cache.convert(str(path), ConvertOptions())
    fresh = convert(load_document(path), ConvertOptions())
    assert first.tools == again.tools == fresh.tools
    properties = again.tools[0].input_schema["properties"]
    assert properties["shipping"] is properties["billing"]
    assert (
        first.tools[0].input_schema["properties"]["shipping"]
        is first.tools[0].input_schema["properties"]["billing"]
    )
