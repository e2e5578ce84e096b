"""Search mode on tasks of several steps: is the whole task found by one `search_tools` query?

    .venv/bin/python bench/tasks.py [--semantic [--model DIR]] [--peer] [--misses] [--sets spotify,...]

Each task set in bench/tasks/*.yaml names a document of ../shared/corpus and holds tasks: a sentence as
a person says it (`say`), and the operations a solution calls in order (`steps`, each a list of the
tools a person would accept for that step). For each task, the sentence is one `search_tools` query
(`SearchIndex.search`, the gateway's own ranking) with `limit` 5 and 10, and we count the tasks whose
first step is among the results, and those whose every step is. Twice: with provenance (`apis.<name>.
provenance`, on by default: descriptions say where ids come from, and a hit's producers are returned
with it) and without. `--peer` runs FastMCP's BM25 search (bench/.venv-peer) over the same tools in the
same run: over our MCP tool definitions without provenance, as FastMCP's own conversion has none, and
with it (descriptions only: FastMCP has no producers to add).

`--misses` prints the misses of the `tune` sets only; `held-out` sets stay unread task by task.
The model of `--semantic` is the extra's, or the folder `--model` names (see bench/search.py).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import yaml

from specbridge.document import load_document
from specbridge.search import SearchIndex, SearchSettings
from specbridge.tools import ConvertOptions, ToolSet, convert, mcp_tool

ROOT = Path(__file__).resolve().parents[1]
CORPUS = Path(os.environ.get("SPECBRIDGE_CORPUS") or ROOT.parent / "shared" / "corpus")  # or a worktree's
TASKS = ROOT / "bench" / "tasks"
LIMITS = (5, 10)


def task_sets(only: set[str] | None = None) -> list[dict[str, Any]]:
    return [
        yaml.safe_load(path.read_text()) | {"set": path.stem}
        for path in sorted(TASKS.glob("*.yaml"))
        if only is None or path.stem in only
    ]


def found(results: list[str], steps: list[list[str]]) -> tuple[bool, bool]:
    """Whether the first step, and whether every step, has a tool among `results`."""
    hits = [any(name in results for name in step) for step in steps]
    return hits[0], all(hits)


def measure(search: Any, tasks: list[dict[str, Any]], misses: bool) -> dict[str, float]:
    """The share of tasks whose first step and whose every step are in the top 5 and top 10."""
    counts = {f"{what}@{k}": 0 for k in LIMITS for what in ("first", "all")}
    for task in tasks:
        for k in LIMITS:
            first, every = found(search(task["say"], k), task["steps"])
            counts[f"first@{k}"] += first
            counts[f"all@{k}"] += every
            if misses and k == 5 and not every:
                print(f"      miss: {task['say']!r} got {search(task['say'], k)}")
    return {key: value / len(tasks) for key, value in counts.items()}


def ours(index: SearchIndex) -> Any:
    return lambda query, k: [tool.name for tool in index.search(query, k).tools]


def line(label: str, figures: dict[str, float]) -> str:
    return f"  {label:28} " + "  ".join(f"{key} {value:.2f}" for key, value in figures.items())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--semantic", action="store_true")
    parser.add_argument("--model", type=Path)
    parser.add_argument("--peer", action="store_true")
    parser.add_argument("--misses", action="store_true")
    parser.add_argument("--sets", help="comma-separated task set names (default: all)")
    options = parser.parse_args()
    only = set(options.sets.split(",")) if options.sets else None
    cache = Path(tempfile.mkdtemp(prefix="specbridge-tasks-bench-"))
    settings = SearchSettings(
        semantic="on" if options.semantic else "off", model_dir=options.model, cache_dir=cache
    )
    totals: dict[tuple[str, str], list[dict[str, float]]] = {}
    peer_sets: dict[str, Any] = {}
    for tasks in task_sets(only):
        document = load_document(str(CORPUS / tasks["document"]))
        toolsets: dict[str, ToolSet] = {
            "with provenance": convert(document),
            "without provenance": convert(document, ConvertOptions(provenance=False)),
        }
        names = {tool.name for tool in toolsets["with provenance"].tools}
        unknown = sorted({n for task in tasks["tasks"] for step in task["steps"] for n in step} - names)
        if unknown:
            print(f"  {tasks['set']}: accepted names that are no tool: {unknown}")
        print(f"{tasks['set']} ({tasks['split']}, {len(names)} tools, {len(tasks['tasks'])} tasks)")
        for label, toolset in toolsets.items():
            index = SearchIndex.build(toolset.tools, document.data, settings=settings)
            misses = options.misses and tasks["split"] == "tune" and label == "with provenance"
            figures = measure(ours(index), tasks["tasks"], misses)
            totals.setdefault((tasks["split"], label), []).append(figures)
            print(line(label, figures))
        peer_sets[tasks["set"]] = {
            "split": tasks["split"],
            "tasks": tasks["tasks"],
            "tools": [mcp_tool(tool) for tool in toolsets["without provenance"].tools],
            "tools_described": [mcp_tool(tool) for tool in toolsets["with provenance"].tools],
        }
    for (split, label), rows in sorted(totals.items()):
        mean = {key: statistics.mean(row[key] for row in rows) for key in rows[0]}
        print(f"mean {split:9}" + line(label, mean)[2:])
    if options.peer:
        path = cache / "tasks-peer.json"
        path.write_text(json.dumps({"sets": peer_sets, "limits": list(LIMITS)}))
        peer = ROOT / "bench" / ".venv-peer" / "bin" / "python"
        subprocess.run([str(peer), str(ROOT / "bench" / "tasks_peer.py"), str(path)], check=False)


if __name__ == "__main__":
    main()
