"""Prometheus metrics, written in the text exposition format by hand (no extra dependency).

specbridge_tool_calls_total{api,tool}                      every tools/call that reached a tool
specbridge_tool_errors_total{api,code}                     isError results and JSON-RPC errors by code
specbridge_upstream_latency_seconds{api} (histogram)       time spent in the call layer per call
specbridge_tools{api}                                      tools currently served
specbridge_reloads_total{api,outcome}                      reloads that succeeded / failed

The first three are exported over OTLP too when telemetry is on (`_telemetry`): gateway.tool.calls,
gateway.tool.errors, gateway.upstream.duration.
"""

from __future__ import annotations

import bisect
from collections import defaultdict

from .. import _telemetry as telemetry

BUCKETS: tuple[float, ...] = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _labels(**labels: str) -> str:
    return "{" + ",".join(f'{key}="{_escape(value)}"' for key, value in labels.items()) + "}"


class _Histogram:
    def __init__(self) -> None:
        self.counts = [0] * (len(BUCKETS) + 1)
        self.total = 0.0
        self.count = 0

    def observe(self, seconds: float) -> None:
        self.counts[bisect.bisect_left(BUCKETS, seconds)] += 1
        self.total += seconds
        self.count += 1


class Metrics:
    """One registry per gateway instance (never a module global)."""

    def __init__(self) -> None:
        self.calls: dict[tuple[str, str], int] = defaultdict(int)
        self.errors: dict[tuple[str, str], int] = defaultdict(int)
        self.latency: dict[str, _Histogram] = defaultdict(_Histogram)
        self.tools: dict[str, int] = {}
        self.reloads: dict[tuple[str, str], int] = defaultdict(int)

    def call(self, api: str, tool: str) -> None:
        self.calls[api, tool] += 1
        telemetry.count_call(api, tool)

    def error(self, api: str, code: str) -> None:
        self.errors[api, code] += 1
        telemetry.count_error(api, code)

    def upstream(self, api: str, seconds: float) -> None:
        self.latency[api].observe(seconds)
        telemetry.observe_upstream(api, seconds)

    def reload(self, api: str, outcome: str) -> None:
        self.reloads[api, outcome] += 1

    def render(self) -> str:
        lines = [
            "# HELP specbridge_tool_calls_total Tool calls handled, by API and tool.",
            "# TYPE specbridge_tool_calls_total counter",
        ]
        lines += [
            f"specbridge_tool_calls_total{_labels(api=api, tool=tool)} {n}"
            for (api, tool), n in sorted(self.calls.items())
        ]
        lines += [
            "# HELP specbridge_tool_errors_total Error results and JSON-RPC errors, by API and stable code.",
            "# TYPE specbridge_tool_errors_total counter",
        ]
        lines += [
            f"specbridge_tool_errors_total{_labels(api=api, code=code)} {n}"
            for (api, code), n in sorted(self.errors.items())
        ]
        lines += [
            "# HELP specbridge_upstream_latency_seconds Time spent calling the API, per tool call.",
            "# TYPE specbridge_upstream_latency_seconds histogram",
        ]
        for api, histogram in sorted(self.latency.items()):
            cumulative = 0
            for bound, count in zip((*BUCKETS, float("inf")), histogram.counts, strict=True):
                cumulative += count
                le = "+Inf" if bound == float("inf") else f"{bound:g}"
                lines.append(
                    f"specbridge_upstream_latency_seconds_bucket{_labels(api=api, le=le)} {cumulative}"
                )
            lines.append(f"specbridge_upstream_latency_seconds_sum{_labels(api=api)} {histogram.total:.6f}")
            lines.append(f"specbridge_upstream_latency_seconds_count{_labels(api=api)} {histogram.count}")
        lines += ["# HELP specbridge_tools Tools currently served.", "# TYPE specbridge_tools gauge"]
        lines += [f"specbridge_tools{_labels(api=api)} {n}" for api, n in sorted(self.tools.items())]
        lines += [
            "# HELP specbridge_reloads_total Reloads of a document or the config, by outcome.",
            "# TYPE specbridge_reloads_total counter",
        ]
        lines += [
            f"specbridge_reloads_total{_labels(api=api, outcome=outcome)} {n}"
            for (api, outcome), n in sorted(self.reloads.items())
        ]
        return "\n".join(lines) + "\n"
