"""Code mode against tool mode and search mode: what a model is handed, and what one call costs.

    # the reference tokenizer bpe-openai (o200k_base) comes with the dev install; the sandbox with it too
    .venv/bin/python bench/code_mode.py [--apis 6] [--queries 10] [--calls 200]

1. Tokens (o200k_base) for the corpus APIs with the most operations:
   - handed before the conversation starts: every tool (`tools/list`, tool mode), search mode's two tools,
     code mode's two tools;
   - one search answer (5 results, averaged over --queries queries: the summaries of operations spread
     over the document): search mode's `search_tools` (tools with input schemas, as JSON) against code
     mode's `search` (Python signatures).
2. Time of one call end to end (the official MCP client over Streamable HTTP to a gateway on loopback,
   a loopback upstream): `tools/call getOrder` against `execute` of a script with the same one call
   inside (`api.getOrder(orderId="o1")`), interleaved, median and p90 over --calls each.
"""

from __future__ import annotations

import argparse
import csv
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.answers import corpus_folder
from tests.support.codemode import code_config, shop_routes
from tests.support.upstream import Upstream

from specbridge import convert, load_document
from specbridge._json import dumps
from specbridge.call import Caller, CallResult, answer_tools
from specbridge.codemode import CodeMode, code_mode_tools
from specbridge.config import ApiConfig, CodeModeConfig, load_config
from specbridge.gateway._mcp import tool_entry
from specbridge.gateway._search import build_index, found, search_mode_tools
from specbridge.service import ToolRules
from specbridge.tools import export


def _encoding() -> Any:
    try:
        import bpe_openai
    except ImportError:
        sys.exit("bpe-openai is not installed (pip install bpe-openai): it is the reference tokenizer")
    return bpe_openai.get_encoding("o200k_base")


def _count(encoding: Any, text: str) -> int:
    """Tokens of `text`, in pieces cut after a comma (the tokenizer refuses one piece of 200,000 tokens)."""
    total, start = 0, 0
    while start < len(text):
        end = text.find(",", start + 100_000)
        end = len(text) if end < 0 else end + 1
        total += len(encoding.encode_ordinary(text[start:end]))
        start = end
    return total


def _largest(count: int) -> list[Path]:
    folder = corpus_folder()
    if folder is None:
        sys.exit("the corpus (../shared/corpus) is not here")
    with (folder / "MANIFEST.tsv").open(encoding="utf-8") as manifest:
        rows = sorted(csv.DictReader(manifest, delimiter="\t"), key=lambda row: -int(row["operations"]))
    return [folder / row["file"] for row in rows[:count]]


async def _tokens(path: Path, queries: int, encoding: Any) -> dict[str, Any]:
    api = ApiConfig(name="api", spec=str(path), base_url="https://api.example.com")
    toolset = answer_tools(api, convert(load_document(str(path))))
    caller = Caller(api, toolset)
    index = build_index(toolset)
    title = toolset.document.title
    every = dumps(export(toolset, "mcp")["tools"])
    search_listing = dumps(search_mode_tools(title, len(toolset.tools), index.tags))
    code_listing = dumps(code_mode_tools(title, len(toolset.tools), CodeModeConfig(), index.tags))
    mode = CodeMode(api, toolset, caller, index)
    step = max(1, len(toolset.tools) // queries)
    asked = [tool.operation.summary or tool.name for tool in toolset.tools[::step][:queries]]
    search_answers, code_answers = [], []
    for query in asked:
        query = query[:500] or "list"
        answer = index.search(query, 5, None, None)
        entries = [tool_entry(caller, tool, None) for tool in answer.tools]
        search_answers.append(_count(encoding, found(entries, answer, index.tags).text))
        result: CallResult = await mode.search(
            {"query": query}, ToolRules(api="api"), lambda tool: tool_entry(caller, tool, None)["inputSchema"]
        )
        code_answers.append(_count(encoding, result.text))
    await caller.aclose()
    return {
        "api": path.name,
        "operations": len(toolset.tools),
        "tools": _count(encoding, every),
        "search": _count(encoding, search_listing),
        "code": _count(encoding, code_listing),
        "search_answer": statistics.mean(search_answers),
        "code_answer": statistics.mean(code_answers),
    }


async def _one_call_cost(calls: int) -> dict[str, tuple[float, float]]:
    from mcp import Client

    from specbridge.gateway import Gateway, bind, serve_http

    samples: dict[str, list[float]] = {"tool call": [], "execute, one call inside": []}
    with Upstream() as upstream:
        shop_routes(upstream)
        folder = Path(__file__).resolve().parent / ".code_mode_bench"
        folder.mkdir(exist_ok=True)
        config = code_config(folder, upstream)  # the shop as `shop`, in code mode; as `tools` in tool mode
        text = config.read_text(encoding="utf-8")
        tool_mode = (
            text.split("apis:\n", 1)[1].replace("  shop:", "  tools:", 1).replace("    code_mode: on\n", "")
        )
        config.write_text(text + tool_mode, encoding="utf-8")
        gateway = Gateway(load_config(config), config_path=str(config))
        await gateway.start()
        sock = bind("127.0.0.1", 0)
        stop, ready, base = anyio.Event(), anyio.Event(), []

        def on_ready(url: str) -> None:
            base.append(url)
            ready.set()

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(lambda: serve_http(gateway, sock, on_ready=on_ready, stop=stop))
            await ready.wait()
            async with Client(f"{base[0]}/shop/mcp") as client, Client(f"{base[0]}/tools/mcp") as tools:
                for _ in range(10):  # warm: connections, plans, a sandbox worker
                    await tools.call_tool("getOrder", {"orderId": "o1"})
                    await client.call_tool("execute", {"code": 'api.getOrder(orderId="o1")'})
                for _ in range(calls):
                    started = time.perf_counter()
                    tool = await tools.call_tool("getOrder", {"orderId": "o1"})
                    samples["tool call"].append(time.perf_counter() - started)
                    started = time.perf_counter()
                    script = await client.call_tool("execute", {"code": 'api.getOrder(orderId="o1")'})
                    samples["execute, one call inside"].append(time.perf_counter() - started)
                    assert not tool.is_error and not script.is_error
            stop.set()
        sock.close()
        await gateway.aclose()
    return {name: _stats(values) for name, values in samples.items()}


def _stats(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    return statistics.median(ordered) * 1e3, ordered[int(len(ordered) * 0.9) - 1] * 1e3


async def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--apis", type=int, default=6)
    parser.add_argument("--queries", type=int, default=10)
    parser.add_argument("--calls", type=int, default=200)
    options = parser.parse_args()
    encoding = _encoding()
    print("| API | operations | tool mode: every tool | search mode: 2 tools | code mode: 2 tools "
          "| one search answer (5), search mode | one search answer (5), code mode |")  # fmt: skip
    print("|---|---:|---:|---:|---:|---:|---:|")
    for path in _largest(options.apis):
        row = await _tokens(path, options.queries, encoding)
        print(f"| {row['api']} | {row['operations']:,} | {row['tools']:,} | {row['search']:,} | {row['code']:,} "
              f"| {row['search_answer']:,.0f} | {row['code_answer']:,.0f} |")  # fmt: skip
    print(f"\none call end to end, {options.calls} each, interleaved (ms):\n")
    print("| call | median | p90 |")
    print("|---|---:|---:|")
    for name, (median, p90) in (await _one_call_cost(options.calls)).items():
        print(f"| {name} | {median:.2f} | {p90:.2f} |")


if __name__ == "__main__":
    anyio.run(main)
