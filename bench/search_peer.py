"""FastMCP's BM25 search transform on the same tools and tasks as bench/search.py (run by it with
`--peer`, in bench/.venv-peer where fastmcp is installed).

    bench/.venv-peer/bin/python bench/search_peer.py TOOLS_AND_TASKS.json

Uses FastMCP's own index class (`fastmcp.server.transforms.search.bm25._BM25Index`) over the text its
transform builds for each tool (`_extract_searchable_text`: name, description, argument names and
descriptions), here from our MCP tool definitions of each document.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from typing import Any

from fastmcp.server.transforms.search.bm25 import _BM25Index


def searchable_text(tool: dict[str, Any]) -> str:  # the same as fastmcp's _extract_searchable_text, on a dict
    parts = [tool["name"]]
    if tool.get("description"):
        parts.append(tool["description"])
    for name, info in (tool.get("inputSchema") or {}).get("properties", {}).items():
        parts.append(name)
        if isinstance(info, dict) and info.get("description"):
            parts.append(info["description"])
    return " ".join(parts)


def main() -> None:
    with open(sys.argv[1]) as handle:
        data = json.load(handle)
    means: dict[str, list[float]] = {}
    for name, entry in data["sets"].items():
        index = _BM25Index()
        index.build([searchable_text(tool) for tool in entry["tools"]])
        names = [tool["name"] for tool in entry["tools"]]
        at1 = at5 = mrr = 0.0
        for task in entry["tasks"]:
            found = [names[i] for i in index.query(task["query"], 20)]
            rank = next((n for n, tool in enumerate(found, 1) if tool in task["accept"]), None)
            at1 += rank == 1
            at5 += rank is not None and rank <= 5
            mrr += 1 / rank if rank else 0.0
        count = len(entry["tasks"])
        means.setdefault(entry["split"], []).extend([at1 / count, at5 / count, mrr / count])
        print(
            f"  fastmcp  {name:7} recall@1 {at1 / count:.2f}  recall@5 {at5 / count:.2f}  MRR {mrr / count:.2f}"
        )
    for split, values in sorted(means.items()):
        at1, at5, mrr = (statistics.mean(values[i::3]) for i in range(3))
        print(f"mean {split:9} fastmcp  recall@1 {at1:.2f}  recall@5 {at5:.2f}  MRR {mrr:.2f}")
    index = _BM25Index()
    index.build([searchable_text(tool) for tool in data["big"]])
    queries = [task["query"] for entry in data["sets"].values() for task in entry["tasks"]]
    timings = []
    for query in queries:
        started = time.perf_counter()
        index.query(query, 5)
        timings.append((time.perf_counter() - started) * 1000)
    timings.sort()
    print(
        f"latency fastmcp  {len(data['big'])} tools, {len(queries)} queries: median {statistics.median(timings):.2f} ms,"
        f" p95 {timings[int(len(timings) * 0.95)]:.2f} ms"
    )


if __name__ == "__main__":
    main()
