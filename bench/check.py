"""Where the time of checking a large union argument goes, before and after the linear checker.

    .venv/bin/python bench/check.py [--items 100,1000,3000,10000]

For each tool and item count, arguments `{prop: [{}] * N}` (no item fits any branch), timed once each:
- `is_valid`: jsonschema-rs's yes/no on the whole (stops at the first wrong item);
- `iter_errors`: every error of the whole instance, as the check used to ask for them (skipped past
  3,000 items: it grows faster than linearly);
- `check`: `Checker.check` as it is now (is_valid in slices, then at most 20 problems, unions not expanded).
Tools: a synthetic 30-branch `oneOf` of object shapes, and OpenAI's `beta_createResponse` (`tools`: a
16-branch union per item; `input`: a string or an array of a 6-branch union) when the corpus is there.
"""

from __future__ import annotations

import argparse
import contextlib
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from specbridge._errors import ArgumentError
from specbridge.call._check import Checker, shape
from specbridge.document import from_data, load_document
from specbridge.tools import convert

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
SHAPES = [
    {
        "type": "object",
        "required": [f"k{i}"],
        "properties": {f"k{i}": {"type": "string"}, "n": {"type": "integer"}},
    }
    for i in range(30)
]


def synthetic() -> dict[str, Any]:
    document = {
        "openapi": "3.1.0",
        "info": {"title": "Batch", "version": "1"},
        "paths": {
            "/batch": {
                "put": {
                    "operationId": "putBatch",
                    "requestBody": {
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "object",
                                    "properties": {"xs": {"type": "array", "items": {"oneOf": SHAPES}}},
                                }
                            }
                        }
                    },
                    "responses": {"200": {"description": "OK"}},
                }
            }
        },
    }
    return convert(from_data(document, source="batch.yaml")).tools[0].input_schema


def timed(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def run(label: str, schema: dict[str, Any], prop: str, counts: list[int]) -> None:
    checker = Checker(schema)
    validator = checker._validator
    shaped_size = len(str(shape(schema, schema.get("$defs", {}))))
    print(f"\n### {label}, argument `{prop}` (shaped schema {shaped_size:,} characters)\n")
    print("| items | is_valid | iter_errors (old check) | check (now) |")
    print("|---:|---:|---:|---:|")
    for count in counts:
        arguments = {prop: [{}] * count}

        def check(arguments: dict[str, Any] = arguments) -> None:
            with contextlib.suppress(ArgumentError):
                checker.check(arguments)

        valid = timed(lambda arguments=arguments: validator.is_valid(arguments))
        every = (
            f"{timed(lambda arguments=arguments: list(validator.iter_errors(arguments))):.3f} s"
            if count <= 3_000
            else "—"
        )
        print(f"| {count:,} | {valid * 1e3:.2f} ms | {every} | {timed(check) * 1e3:.1f} ms |")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", default="100,1000,3000,10000")
    counts = [int(part) for part in parser.parse_args().items.split(",")]
    run("synthetic 30-branch oneOf", synthetic(), "xs", counts)
    openai = CORPUS / "openai_openapi.yaml"
    if openai.exists():
        tool = convert(load_document(str(openai))).get("beta_createResponse")
        assert tool is not None
        run("OpenAI beta_createResponse", tool.input_schema, "tools", counts)
        run("OpenAI beta_createResponse", tool.input_schema, "input", counts)


if __name__ == "__main__":
    main()
