"""Lint benchmark: `specbridge lint` vs Spectral and Redocly CLI on the largest corpus documents.

    python bench/lint.py [--corpus ../shared/corpus] [--top 3] [--runs 3]

Peers (installed with `npm install --prefix bench @stoplight/spectral-cli @redocly/cli`):
- Spectral with `bench/spectral-agent-ruleset.yaml` (the specbridge rules its core functions can express),
- Spectral with its default `spectral:oas` ruleset,
- Redocly CLI `lint` with its default (`recommended`) ruleset.
Every run is a whole process under `/usr/bin/time -v` (wall clock and peak RSS); the figure is the
median wall time and the largest peak RSS of `--runs` runs. specbridge runs with every rule on.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"
BIN = BENCH / "node_modules" / ".bin"
DEFAULT_CORPUS = ROOT.parent / "shared" / "corpus"
TIMEOUT = 900


def _specbridge_count(out: str) -> int:
    return len(json.loads(out)["findings"])


def _spectral_count(out: str) -> int:
    start = out.find("[")
    return len(json.loads(out[start:])) if start >= 0 else 0


def _redocly_count(out: str) -> int:
    return len(json.loads(out[out.find("{") :]).get("problems", []))


def peers(document: Path) -> list[tuple[str, list[str], Callable[[str], int]]]:
    specbridge = ROOT / ".venv" / "bin" / "specbridge"
    spectral = str(BIN / "spectral")
    return [
        (
            "specbridge lint",
            [str(specbridge), "lint", str(document), "--format", "json"],
            _specbridge_count,
        ),
        (
            "Spectral (agent rules)",
            [
                spectral,
                "lint",
                str(document),
                "-r",
                str(BENCH / "spectral-agent-ruleset.yaml"),
                "-f",
                "json",
                "-q",
            ],
            _spectral_count,
        ),
        (
            "Spectral (spectral:oas)",
            [
                spectral,
                "lint",
                str(document),
                "-r",
                str(BENCH / "spectral-oas-ruleset.yaml"),
                "-f",
                "json",
                "-q",
            ],
            _spectral_count,
        ),
        (
            "Redocly CLI (recommended)",
            [str(BIN / "redocly"), "lint", str(document), "--format", "json"],
            _redocly_count,
        ),
    ]


def timed(command: list[str]) -> dict[str, Any]:
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        subprocess.run(
            ["/usr/bin/time", "-v", *command], stdout=out, stderr=err, timeout=TIMEOUT, check=False
        )
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)", stderr)
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", stderr)
    if wall is None or rss is None:
        raise RuntimeError(f"no /usr/bin/time figures for {command[0]}: {stderr[-500:]}")
    seconds = int(wall.group(1) or 0) * 3600 + int(wall.group(2)) * 60 + float(wall.group(3))
    return {"seconds": seconds, "rss_mib": int(rss.group(1)) / 1024, "stdout": stdout}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--top", type=int, default=3, help="how many of the largest documents")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    if not args.corpus.is_dir():
        sys.exit(f"no corpus at {args.corpus}")
    if not (BIN / "spectral").exists() or not (BIN / "redocly").exists():
        sys.exit("install the peers first: npm install --prefix bench @stoplight/spectral-cli @redocly/cli")
    documents = sorted(
        (p for p in args.corpus.iterdir() if p.suffix in (".json", ".yaml", ".yml")),
        key=lambda p: p.stat().st_size,
        reverse=True,
    )[: args.top]
    print("| document | size | linter | wall s (median) | peak RSS MiB | findings |")
    print("|---|---:|---|---:|---:|---:|")
    for document in documents:
        for name, command, count in peers(document):
            runs = [timed(command) for _ in range(args.runs)]
            try:
                found: int | str = count(runs[0]["stdout"])
            except (ValueError, KeyError):
                found = "?"
            wall = statistics.median(run["seconds"] for run in runs)
            rss = max(run["rss_mib"] for run in runs)
            size = f"{document.stat().st_size / 1e6:.1f} MB"
            print(f"| {document.name} | {size} | {name} | {wall:.2f} | {rss:.0f} | {found} |", flush=True)


if __name__ == "__main__":
    main()
