"""Request fidelity over the corpus: the share of built requests openapi-core accepts, failures by kind.

.venv/bin/python bench/fidelity.py [--max-bytes N] [--per-document N]
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.fidelity import run


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--max-bytes", type=int, default=1_000_000)
    parser.add_argument("--per-document", type=int, default=25)
    options = parser.parse_args()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        stats = run(max_bytes=options.max_bytes, per_document=options.per_document)
    print(
        f"operations checked: {stats.operations}, accepted: {stats.accepted} ({stats.share:.1%}), {stats.seconds:.1f} s"
    )
    for kind, count in stats.skipped.most_common():
        print(f"  skipped {count:4d}  {kind}")
    for kind, count in stats.failures.most_common():
        print(f"  failed  {count:4d}  {kind}\n          e.g. {stats.examples[kind]}")


if __name__ == "__main__":
    main()
