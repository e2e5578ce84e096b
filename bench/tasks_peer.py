"""FastMCP's BM25 search on the task sets of bench/tasks.py (run by it with `--peer`, in
bench/.venv-peer where fastmcp is installed).

    bench/.venv-peer/bin/python bench/tasks_peer.py TASKS_AND_TOOLS.json

FastMCP's own index class over the text its search transform builds for each tool (name, description,
argument names and descriptions: bench/search_peer.py's `searchable_text`), from our MCP tool
definitions without provenance and with its lines in the descriptions.
"""

from __future__ import annotations

import json
import statistics
import sys

from fastmcp.server.transforms.search.bm25 import _BM25Index
from search_peer import searchable_text


def main() -> None:
    with open(sys.argv[1]) as handle:
        data = json.load(handle)
    limits = data["limits"]
    totals: dict[tuple[str, str], list[dict[str, float]]] = {}
    for name, entry in data["sets"].items():
        for label, key in (("fastmcp bm25", "tools"), ("fastmcp bm25, described", "tools_described")):
            index = _BM25Index()
            index.build([searchable_text(tool) for tool in entry[key]])
            names = [tool["name"] for tool in entry[key]]
            counts = {f"{what}@{k}": 0.0 for k in limits for what in ("first", "all")}
            for task in entry["tasks"]:
                for k in limits:
                    results = [names[i] for i in index.query(task["say"], k)]
                    hits = [any(tool in results for tool in step) for step in task["steps"]]
                    counts[f"first@{k}"] += hits[0]
                    counts[f"all@{k}"] += all(hits)
            figures = {key: value / len(entry["tasks"]) for key, value in counts.items()}
            totals.setdefault((entry["split"], label), []).append(figures)
            print(f"{name:10} {label:28} " + "  ".join(f"{k} {v:.2f}" for k, v in figures.items()))
    for (split, label), rows in sorted(totals.items()):
        mean = {key: statistics.mean(row[key] for row in rows) for key in rows[0]}
        print(f"mean {split:9} {label:28} " + "  ".join(f"{k} {v:.2f}" for k, v in mean.items()))


if __name__ == "__main__":
    main()
