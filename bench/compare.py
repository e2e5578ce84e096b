"""Compare two figure files of `bench/serve.py --out` by ratio: what `make bench-check` runs.

    .venv/bin/python bench/compare.py BASELINE.json LATEST.json [--tolerance 0.25]

Each figure the two files share is compared as LATEST / BASELINE. A figure where more is better (calls
per second, ratios to FastMCP or to one worker) fails below 1 - tolerance; one where less is better
(seconds, milliseconds, MiB) fails above 1 + tolerance. Exit status 1 when any fails, with a table of
them all. A ratio says more than an absolute figure on a shared machine, and the figures that are
themselves ratios measured in one run (`ratio_*`) say the most: they do not move with the machine.
For a person to run before a release, never a test (timings do not belong in `make test`).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

LOWER_IS_BETTER = ("_s", "_ms", "_mib")


def better_when_higher(name: str) -> bool:
    return not name.endswith(LOWER_IS_BETTER)


def compare(
    baseline: dict[str, float], latest: dict[str, float], tolerance: float
) -> list[tuple[str, float, float, float, bool]]:
    """(name, baseline, latest, latest / baseline, ok) for every figure both have."""
    rows = []
    for name in sorted(set(baseline) & set(latest)):
        before, now = float(baseline[name]), float(latest[name])
        ratio = now / before if before else float("inf")
        ok = ratio >= 1 - tolerance if better_when_higher(name) else ratio <= 1 + tolerance
        rows.append((name, before, now, ratio, ok))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("baseline", type=Path)
    parser.add_argument("latest", type=Path)
    parser.add_argument("--tolerance", type=float, default=0.25, help="the share a figure may worsen by")
    args = parser.parse_args()
    baseline, latest = (json.loads(path.read_text()) for path in (args.baseline, args.latest))
    rows = compare(baseline["figures"], latest["figures"], args.tolerance)
    print(
        f"baseline {baseline.get('commit')} ({baseline.get('date')}), latest {latest.get('commit')} ({latest.get('date')})"
    )
    print(f"{'figure':42} {'baseline':>10} {'latest':>10} {'ratio':>7}")
    for name, before, now, ratio, ok in rows:
        sense = "higher" if better_when_higher(name) else "lower"
        print(
            f"{name:42} {before:10.3f} {now:10.3f} {ratio:7.2f}  {'ok' if ok else 'WORSE'} ({sense} is better)"
        )
    failed = [row[0] for row in rows if not row[4]]
    if failed:
        print(
            f"\n{len(failed)} figure(s) worse than the baseline by more than {args.tolerance:.0%}: {', '.join(failed)}"
        )
        return 1
    print(f"\nall {len(rows)} figures within {args.tolerance:.0%} of the baseline")
    return 0


if __name__ == "__main__":
    sys.exit(main())
