"""Lint benchmark: `specbridge lint` vs Spectral and Redocly CLI on the largest corpus documents.

    python bench/lint.py [--corpus ../shared/corpus] [--top 3] [--runs 3]
    python bench/lint.py --against /tmp/sb-aef15e1 [--runs 21]

`--against CHECKOUT` instead times this checkout beside another one (a `git worktree` of an older
commit with its own `.venv`, e.g. `git worktree add --detach /tmp/sb-aef15e1 aef15e1 && cd
/tmp/sb-aef15e1 && python3 -m venv .venv && .venv/bin/pip install -e .`): the whole `lint` process on
Stripe's document and `tools` on GitHub's, the two alternating run by run so both see the same machine.

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
import os
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


# As an installed package runs: from bytecode. With PYTHONDONTWRITEBYTECODE set (as in some shells and
# CI images) an editable checkout compiles every module from source on every run, which measures the
# size of the source rather than the work (a tenth of a second for this package).
ENV = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}


def timed(command: list[str]) -> dict[str, Any]:
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        subprocess.run(
            ["/usr/bin/time", "-v", *command], stdout=out, stderr=err, timeout=TIMEOUT, check=False, env=ENV
        )
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)", stderr)
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", stderr)
    user = re.search(r"User time \(seconds\): ([\d.]+)", stderr)
    system = re.search(r"System time \(seconds\): ([\d.]+)", stderr)
    if wall is None or rss is None or user is None or system is None:
        raise RuntimeError(f"no /usr/bin/time figures for {command[0]}: {stderr[-500:]}")
    seconds = int(wall.group(1) or 0) * 3600 + int(wall.group(2)) * 60 + float(wall.group(3))
    cpu = float(user.group(1)) + float(system.group(1))
    return {"seconds": seconds, "cpu": cpu, "rss_mib": int(rss.group(1)) / 1024, "stdout": stdout}


AGAINST = (
    ("lint", "stripe_spec3_2023-09.yaml", ["--format", "json"]),
    ("tools", "github_api.github.com_2021-10.json", []),
)


def against(other: Path, corpus: Path, runs: int) -> None:
    """Median wall and CPU seconds of whole processes, this checkout and `other` alternating."""
    checkouts = {"this checkout": ROOT, other.name: other}
    print("| command | checkout | wall s (median) | CPU s (median) | peak RSS MiB |")
    print("|---|---|---:|---:|---:|")
    for command, name, extra in AGAINST:
        walls: dict[str, list[float]] = {label: [] for label in checkouts}
        cpus: dict[str, list[float]] = {label: [] for label in checkouts}
        rss: dict[str, float] = dict.fromkeys(checkouts, 0.0)
        for run_number in range(runs + 1):  # the first run of each writes its bytecode: not counted
            for label, checkout in checkouts.items():
                argv = [str(checkout / ".venv" / "bin" / "specbridge"), command, str(corpus / name), *extra]
                run = timed(argv)
                if run_number == 0:
                    continue
                walls[label].append(run["seconds"])
                cpus[label].append(run["cpu"])
                rss[label] = max(rss[label], run["rss_mib"])
        for label in checkouts:
            wall, cpu = statistics.median(walls[label]), statistics.median(cpus[label])
            print(f"| {command} {name} | {label} | {wall:.3f} | {cpu:.3f} | {rss[label]:.0f} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--top", type=int, default=3, help="how many of the largest documents")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--against", type=Path, help="another checkout (with its .venv) to time beside")
    args = parser.parse_args()
    if not args.corpus.is_dir():
        sys.exit(f"no corpus at {args.corpus}")
    if args.against is not None:
        against(args.against, args.corpus, args.runs)
        return
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
