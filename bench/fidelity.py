"""Request fidelity, end to end: `specbridge serve` over Streamable HTTP, the official MCP client, every
operation of every OpenAPI 3.x document of ../shared/corpus, two passes (required arguments only, every
argument down to depth 5); each request the recording upstream receives is validated by openapi-core
against the original document. Prints the share per pass and the failures by kind.

.venv/bin/python bench/fidelity.py [--max-bytes N] [--sample N] [--only NAME ...] [--examples N] [--peer]
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.fidelity import PASSES, Api, documents, measure
from tests.support.fidelity_peer import measure_peer


def _progress(api: Api) -> None:
    print(f"  done: {api.path.name}", file=sys.stderr, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--max-bytes", type=int, default=None, help="only documents up to this size")
    parser.add_argument("--sample", type=int, default=None, help="about N operations per document")
    parser.add_argument(
        "--only", nargs="*", default=None, help="only documents whose file name has one of these"
    )
    parser.add_argument("--examples", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--peer", action="store_true", help="FastMCP from_openapi instead (bench/.venv-peer)")
    options = parser.parse_args()
    paths = documents(options.max_bytes)
    if options.only:
        paths = [p for p in paths if any(word in p.name for word in options.only)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if options.peer:
            stats = anyio.run(lambda: measure_peer(paths, sample=options.sample, progress=_progress))
        else:
            stats = anyio.run(
                lambda: measure(
                    paths, sample=options.sample, concurrency=options.concurrency, progress=_progress
                )
            )
    for mode in PASSES:
        result = stats[mode]
        judged = result.operations - sum(result.unverifiable.values())
        print(
            f"{mode}: {result.operations} operations, {judged} judged, {result.accepted} accepted "
            f"({result.share:.2%} of judged, {result.raw_share:.2%} of all), {result.seconds:.0f} s"
        )
        for kind, count in result.skipped.most_common():
            print(f"  skipped {count:4d}  {kind}")
        for kind, count in result.unverifiable.most_common():
            print(f"  {count:4d}  {kind}")
            for example in result.examples[kind][: options.examples]:
                print(f"            {example}")
        for kind, count in result.failures.most_common():
            print(f"  failed  {count:4d}  {kind}")
            for example in result.examples[kind][: options.examples]:
                print(f"            {example}")


if __name__ == "__main__":
    main()
