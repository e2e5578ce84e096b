"""Conversion benchmark: specbridge vs FastMCP's OpenAPI support over the real-world corpus.

    python bench/convert.py [--corpus ../shared/corpus] [--peer-python bench/.venv-peer/bin/python]

Each conversion runs in a fresh subprocess (a worker mode of this script) that reads the document,
converts it and renders the `tools/list` result; the worker reports the time of that work, the
process's peak RSS, the tool-list bytes (compact JSON of the tools/list result) and the tool count.
FastMCP lives in its own venv (`python3.11 -m venv bench/.venv-peer && bench/.venv-peer/bin/pip
install fastmcp`); no network call happens during conversion.
Then the whole `specbridge tools` process is timed on the Stripe document (hyperfine when installed,
else the median of 5 runs).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = ROOT.parent / "shared" / "corpus"
DEFAULT_PEER = ROOT / "bench" / ".venv-peer" / "bin" / "python"
STRIPE = "stripe_spec3_2023-09.yaml"
TIMEOUT = 600


# ---- workers (run in a fresh process each) ----------------------------------------------------------


def _peak_rss_mib() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def worker_specbridge(path: str) -> dict[str, Any]:
    from specbridge._json import dumps_bytes
    from specbridge.document import load_document
    from specbridge.tools import convert, export_mcp

    start = time.perf_counter()
    tools = export_mcp(convert(load_document(path)))
    payload = dumps_bytes(tools)
    return {"seconds": time.perf_counter() - start, "bytes": len(payload), "tools": len(tools["tools"])}


def _peer_load(path: str) -> Any:
    import re

    import yaml

    text = Path(path).read_text(encoding="utf-8").removeprefix("\ufeff")
    if text.lstrip()[:1] in "{[":
        return json.loads(text)

    class Loader(yaml.CSafeLoader):  # YAML 1.2-ish: dates stay strings, as FastMCP's users would want
        pass

    Loader.yaml_implicit_resolvers = {
        first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
        for first, resolvers in yaml.CSafeLoader.yaml_implicit_resolvers.items()
    }
    data = yaml.load(text, Loader=Loader)

    def keys(node: Any) -> Any:
        if isinstance(node, dict):
            return {str(k): keys(v) for k, v in node.items()}
        if isinstance(node, list):
            return [keys(v) for v in node]
        return node

    del re
    return keys(data)


def worker_fastmcp(path: str) -> dict[str, Any]:
    import asyncio
    import logging

    logging.disable(logging.WARNING)
    import httpx2
    from fastmcp import FastMCP

    async def run() -> dict[str, Any]:
        start = time.perf_counter()
        spec = _peer_load(path)
        client = httpx2.AsyncClient(base_url="https://api.example.invalid")
        server = FastMCP.from_openapi(openapi_spec=spec, client=client)
        listed = await server.list_tools()
        result = {
            "tools": [
                tool.to_mcp_tool().model_dump(by_alias=True, exclude_none=True, mode="json")
                for tool in listed
            ]
        }
        payload = json.dumps(result, separators=(",", ":"), ensure_ascii=False).encode()
        return {"seconds": time.perf_counter() - start, "bytes": len(payload), "tools": len(listed)}

    return asyncio.run(run())


def worker(kind: str, path: str) -> None:
    try:
        result = worker_specbridge(path) if kind == "specbridge" else worker_fastmcp(path)
        result["ok"] = True
    except Exception as error:  # a failed conversion is a result, not a crash of the benchmark
        result = {"ok": False, "error": f"{type(error).__name__}: {str(error)[:200]}"}
    result["rss_mib"] = _peak_rss_mib()
    sys.stdout.write(json.dumps(result) + "\n")


# ---- driver -----------------------------------------------------------------------------------------


def run_worker(python: str, kind: str, path: Path) -> dict[str, Any]:
    try:
        done = subprocess.run(
            [python, __file__, "--worker", kind, str(path)],
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return {"ok": False, "error": f"timed out after {TIMEOUT}s"}
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        return {"ok": False, "error": (done.stderr.strip().splitlines() or ["no output"])[-1][:200]}
    result: dict[str, Any] = json.loads(lines[-1])
    return result


def time_stripe_cli(corpus: Path) -> str:
    stripe = corpus / STRIPE
    command = f"{ROOT / '.venv' / 'bin' / 'specbridge'} tools {stripe} -o /dev/null"
    if shutil.which("hyperfine"):
        export = ROOT / "bench" / ".hyperfine-stripe.json"
        subprocess.run(
            ["hyperfine", "--warmup", "1", "--runs", "10", "--export-json", str(export), command],
            check=True,
            capture_output=True,
        )
        data = json.loads(export.read_text())["results"][0]
        export.unlink()
        timing = f"hyperfine: mean {data['mean']:.3f} s ± {data['stddev']:.3f} s, min {data['min']:.3f} s"
    else:
        runs = []
        for _ in range(5):
            start = time.perf_counter()
            subprocess.run(command.split(), check=True, capture_output=True)
            runs.append(time.perf_counter() - start)
        timing = f"median of 5: {statistics.median(runs):.3f} s"
    rss = _cli_rss(command)
    return f"`{command}` — {timing}; peak RSS {rss:.0f} MiB"


def _cli_rss(command: str) -> float:
    """Peak RSS of one run, measured by a fresh parent so earlier children do not count."""
    probe = (
        "import resource, subprocess, sys; subprocess.run(sys.argv[1:], capture_output=True, check=True); "
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, *command.split()], capture_output=True, text=True, check=True
    )
    return int(done.stdout.strip()) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--worker", nargs=2, metavar=("KIND", "PATH"), help=argparse.SUPPRESS)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument(
        "--python", default=str(ROOT / ".venv" / "bin" / "python"), help="specbridge's python"
    )
    parser.add_argument("--peer-python", default=str(DEFAULT_PEER), help="the venv python with fastmcp")
    parser.add_argument("--only", nargs="*", help="document file names to run (default: all)")
    args = parser.parse_args()
    if args.worker:
        worker(*args.worker)
        return
    manifest = args.corpus / "MANIFEST.tsv"
    if not manifest.is_file():
        sys.exit(f"corpus folder {args.corpus} is absent")
    names = sorted(
        line.split("\t", 1)[0] for line in manifest.read_text(encoding="utf-8").splitlines()[1:] if line
    )
    if args.only:
        names = [name for name in names if name in args.only]
    peer = args.peer_python if Path(args.peer_python).exists() else None
    progress = sys.stderr.isatty()
    header = f"{'document':42} {'sb s':>7} {'sb MiB':>7} {'sb bytes':>11} {'sb #':>5} | {'fm s':>7} {'fm MiB':>7} {'fm bytes':>11} {'fm #':>5}"
    print(header)
    print("-" * len(header))
    totals = {"specbridge": [0, 0, 0.0], "fastmcp": [0, 0, 0.0]}  # converted, bytes, seconds
    failures: list[str] = []
    for name in names:
        if progress:
            print(f"… {name}", end="\r", file=sys.stderr, flush=True)
        ours = run_worker(args.python, "specbridge", args.corpus / name)
        theirs = (
            run_worker(peer, "fastmcp", args.corpus / name)
            if peer
            else {"ok": False, "error": "no peer venv"}
        )
        cells = []
        for kind, result in (("specbridge", ours), ("fastmcp", theirs)):
            if result["ok"]:
                totals[kind][0] += 1
                totals[kind][1] += result["bytes"]
                totals[kind][2] += result["seconds"]
                cells.append(
                    f"{result['seconds']:7.2f} {result['rss_mib']:7.0f} {result['bytes']:11,d} {result['tools']:5d}"
                )
            else:
                failures.append(f"{kind} {name}: {result['error']}")
                cells.append(f"{'FAILED':>7} {result.get('rss_mib', 0):7.0f} {'-':>11} {'-':>5}")
        print(f"{name[:42]:42} {cells[0]} | {cells[1]}")
    print("-" * len(header))
    for kind in ("specbridge", "fastmcp"):
        converted, total_bytes, seconds = totals[kind]
        print(
            f"total {kind}: {converted}/{len(names)} documents converted, {total_bytes:,d} tool-list bytes, {seconds:.2f} s"
        )
    if totals["fastmcp"][1]:
        print(f"tool-list bytes, specbridge / fastmcp: {totals['specbridge'][1] / totals['fastmcp'][1]:.3f}")
    for failure in failures:
        print("failed:", failure)
    if (args.corpus / STRIPE).is_file() and not args.only:
        print("stripe, whole process:", time_stripe_cli(args.corpus))


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
