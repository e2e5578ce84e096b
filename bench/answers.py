"""Answers sized for a model, measured on realistic large answers built from the corpus.

    # the reference tokenizer bpe-openai (o200k_base, cl100k_base) comes with the dev install
    .venv/bin/python bench/answers.py [--sizes 10,100,1000] [--per-document 3] [--repeat 20]

For each list operation of the corpus documents (up to --per-document each), answers of each size built
from the document's own response schema and examples (tests/support/answers.py), rendered the way the
gateway renders them (`call._render.render`, default budget of 20,000 tokens) and reported:

- tokens the model was handed before (the whole answer, up to the 1 MB read cap) and after, counted with
  o200k_base (and the estimate's error against o200k_base and cl100k_base on every answer);
- the time spent shaping one answer (from the parsed answer to the result: budget, cut, note), p50 and
  p99 over --repeat runs, by answer size, and the whole render (parse included) for reference;
- for every shortened answer, whether its note names a paging argument the operation really has (and
  never one it does not have);
- a hostile answer: 1 MB of 100,000 small items.
"""

from __future__ import annotations

import argparse
import gc
import re
import statistics
import sys
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.answers import ListAnswer, corpus_folder, list_answers

from specbridge.call._answers import AnswerPolicy, json_result
from specbridge.call._paging import paging_of
from specbridge.call._render import Redactor, render
from specbridge.call._select import parse_fields
from specbridge.call._send import READ_LIMIT, Answer
from specbridge.call._tokens import estimate_tokens


def _encoders() -> dict[str, Any]:
    try:
        import bpe_openai
    except ImportError:
        print("bpe-openai is not installed: token counts are the estimate's (pip install bpe-openai)")
        return {}
    return {name: bpe_openai.get_encoding(name) for name in ("o200k_base", "cl100k_base")}


def _count(encoding: Any, text: str) -> int:
    """Tokens of `text`, in pieces cut after a comma (the tokenizer refuses one piece of 200,000 tokens)."""
    total, start = 0, 0
    while start < len(text):
        end = text.find(",", start + 100_000)
        end = len(text) if end < 0 else end + 1
        total += len(encoding.encode_ordinary(text[start:end]))
        start = end
    return total


def _before(body: bytes, value: Any) -> str:
    """What the model was handed before budgets: compact JSON beside structuredContent for an object,
    else indented; cut at the 1 MB read cap."""
    if len(body) > READ_LIMIT:
        return body[:READ_LIMIT].decode("utf-8", "replace")
    return orjson.dumps(value, option=0 if isinstance(value, dict) else orjson.OPT_INDENT_2).decode()


def _with_megabyte(answers: Iterator[ListAnswer]) -> Iterator[ListAnswer]:
    """Each answer, and after each of the largest size one of as many of its items as fit in 1 MB (its
    items again, or its first ones), where the shaping time is held to 2 ms."""
    for answer in answers:
        yield answer
        items = _at(answer.value, answer.list_path)
        if answer.items < 1000 or not items:
            continue
        each = len(orjson.dumps(items)) / len(items)
        count = int(1_000_000 / each)
        filled = (items * (count // len(items) + 1))[:count]
        value = filled if not answer.list_path else {**answer.value, answer.list_path[0]: filled}
        yield replace(answer, items=-1, value=value)


def _at(value: Any, path: tuple[str, ...]) -> Any:
    for key in path:
        value = value[key]
    return value


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def _policy(answer: ListAnswer) -> AnswerPolicy:
    tool = answer.tool
    return AnswerPolicy(paging=paging_of(tool), whole_object=tool.output_schema is not None)


def _answer(body: bytes) -> Answer:
    headers = httpx.Headers({"content-type": "application/json"})
    return Answer(200, headers, body[:READ_LIMIT], truncated=len(body) > READ_LIMIT)


def _time(function: Any, repeat: int) -> list[float]:
    """Milliseconds of CPU time of this thread per run: the wall time on a shared machine also counts
    whatever else runs (docs/benchmarks-gateway.md gives both)."""
    times = []
    for _ in range(repeat):
        started = time.thread_time()
        function()
        times.append((time.thread_time() - started) * 1000)
    return times


def _wall(function: Any, repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        function()
        times.append((time.perf_counter() - started) * 1000)
    return times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="10,100,1000")
    parser.add_argument("--per-document", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=20)
    options = parser.parse_args()
    if corpus_folder() is None:
        sys.exit("../shared/corpus is absent")
    encoders = _encoders()
    sizes = tuple(int(size) for size in options.sizes.split(","))
    rows = []
    errors: dict[str, list[float]] = {name: [] for name in encoders}
    shaping: dict[str, list[float]] = {}
    shaping_wall: dict[str, list[float]] = {}
    render_ms: dict[str, list[float]] = {}
    selecting: list[float] = []
    selections: list[tuple[bytes, AnswerPolicy]] = []  # timed again once every answer is built
    notes = {"shortened": 0, "names a real paging argument": 0, "names one it lacks": 0, "no paging": 0}
    for answer in _with_megabyte(list_answers(sizes, per_document=options.per_document)):
        body = orjson.dumps(answer.value)
        policy = _policy(answer)
        before = _before(body, answer.value)
        result = render(_answer(body), Redactor(), policy)
        after = result.text
        counts = {name: (_count(enc, before), _count(enc, after)) for name, enc in encoders.items()}
        for name in encoders:
            real = counts[name][0]
            errors[name].append((estimate_tokens(before) - real) / real)
        bucket = "≥ 900 KB" if len(body) >= 900_000 else "100-900 KB" if len(body) >= 100_000 else "< 100 KB"
        if len(body) <= READ_LIMIT:
            parsed = orjson.loads(body)
            shaping.setdefault(bucket, []).extend(
                _time(lambda: json_result(parsed, 200, policy, body=body), options.repeat)  # noqa: B023
            )
            shaping_wall.setdefault(bucket, []).extend(
                _wall(lambda: json_result(parsed, 200, policy, body=body), options.repeat)  # noqa: B023
            )
            items = _at(parsed, answer.list_path)
            if bucket == "≥ 900 KB" and items and isinstance(items[0], dict) and items[0]:
                path = "/".join([*answer.list_path, "*", next(iter(items[0]))])
                picked = AnswerPolicy(select=True, selection=parse_fields([path]))
                selecting.extend(_time(lambda: json_result(parsed, 200, picked), 3))  # noqa: B023
                selections.append((body, picked))  # bytes: nothing for the collector to go over
            render_ms.setdefault(bucket, []).extend(
                _time(lambda: render(_answer(body), Redactor(), policy), max(2, options.repeat // 4))  # noqa: B023
            )
        if after.startswith(("[Shortened", "The API answered 200 and the call succeeded")):
            notes["shortened"] += 1
            named = set(re.findall(r"`([^`]+)`", after.split("\n", 2)[1 if result.is_error else 0]))
            arguments = {argument.name for argument in answer.tool.arguments}
            paging = set(policy.paging.sizes + policy.paging.positions)
            if not paging:
                notes["no paging"] += 1
            elif named & paging:
                notes["names a real paging argument"] += 1
            wrong = {name for name in named if name in paging and name not in arguments}
            notes["names one it lacks"] += bool(wrong)
        rows.append(
            (answer, len(body), counts.get("o200k_base", (estimate_tokens(before), estimate_tokens(after))))
        )
    print(f"{len(rows)} answers from {len({row[0].document for row in rows})} documents")
    print("\n| items | answers | bytes (median) | o200k before (median / max) | o200k after (median / max) |")
    print("|---:|---:|---:|---:|---:|")
    for size in (*sizes, -1):
        found = [row for row in rows if row[0].items == size]
        if not found:
            continue
        before_tokens = [row[2][0] for row in found]
        after_tokens = [row[2][1] for row in found]
        label = f"{size:,}" if size > 0 else "as many as fit in 1 MB"
        print(
            f"| {label} | {len(found)} | {int(statistics.median(row[1] for row in found)):,} | "
            f"{int(statistics.median(before_tokens)):,} / {max(before_tokens):,} | "
            f"{int(statistics.median(after_tokens)):,} / {max(after_tokens):,} |"
        )
    for name, found in errors.items():
        absolute = [abs(error) for error in found]
        print(
            f"\nestimate vs {name}: max |error| {max(absolute):.1%}, p95 {_percentile(absolute, 0.95):.1%}, "
            f"mean {statistics.mean(found):+.1%}, within ±15 %: {sum(a <= 0.15 for a in absolute)}/{len(found)}"
        )
    print(
        "\n| answer size | runs | shaping CPU p50 | CPU p99 | wall p50 | whole render CPU p50 (parse included) |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    for bucket in ("< 100 KB", "100-900 KB", "≥ 900 KB"):
        if bucket in shaping:
            cpu = shaping[bucket]
            print(
                f"| {bucket} | {len(cpu)} | {_percentile(cpu, 0.5):.2f} ms | {_percentile(cpu, 0.99):.2f} ms | "
                f"{_percentile(shaping_wall[bucket], 0.5):.2f} ms | {_percentile(render_ms[bucket], 0.5):.2f} ms |"
            )
    print(
        f"\nfields (one path such as data/*/id) on the answers of about 1 MB, selection and budget: CPU p50 "
        f"{_percentile(selecting, 0.5):.2f} ms, p99 {_percentile(selecting, 0.99):.2f} ms ({len(selecting)} runs)"
    )
    # The same selections once every answer is built: timed inside the loop above, a run may also pay
    # for the collector going over the garbage this script made building the answers around it.
    apart = {"collector on": False, "collector off": True}
    for label, off in apart.items():
        times = []
        for body, picked in selections:
            parsed = orjson.loads(body)
            for _ in range(3):
                if off:
                    gc.disable()
                times += _time(lambda: json_result(parsed, 200, picked), 1)  # noqa: B023
                gc.enable()
        print(
            f"fields on the same answers once all are built, {label}: CPU p50 {_percentile(times, 0.5):.2f} ms, "
            f"p99 {_percentile(times, 0.99):.2f} ms"
        )
    print(f"\nnotes: {notes}")
    hostile = [{"i": index} for index in range(100_000)]
    data = orjson.dumps(hostile)
    times = _time(lambda: json_result(hostile, 200, AnswerPolicy(), body=data), options.repeat)
    walls = _wall(lambda: json_result(hostile, 200, AnswerPolicy(), body=data), options.repeat)
    print(
        f"hostile answer, {len(data):,} bytes of 100,000 items: shaping CPU p50 {_percentile(times, 0.5):.2f} ms, "
        f"p99 {_percentile(times, 0.99):.2f} ms; wall p50 {_percentile(walls, 0.5):.2f} ms"
    )


if __name__ == "__main__":
    main()
