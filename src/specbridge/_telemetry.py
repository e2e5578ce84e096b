"""OpenTelemetry traces and metrics over OTLP/HTTP (protobuf), when the operator asks for them; otherwise
nothing at all: every function below returns at once, imports nothing and wraps nothing.

Turned on by `start()` (the gateway calls it with the config's `telemetry:` or, without one, the
standard `OTEL_EXPORTER_OTLP_ENDPOINT`/`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`), off again by `stop()`,
which exports what is left. One set of providers per process, never the OpenTelemetry globals: a
library that emits through the global provider (the MCP SDK's own per-message span) stays silent, and
the gateway's spans are the ones exported.

- `server_span`: one SERVER span per MCP request, its parent the caller's trace context taken from the
  request's `_meta` (`traceparent`, `tracestate`, `baggage`, SEP-414), else from its HTTP headers.
- `step` / `traced`: one INTERNAL span per step of a call's line (plan, check, approve, claim, send,
  store...), around an awaitable or a plain call.
- `inject`: the gateway's own `traceparent` (and the caller's `tracestate`) on the request sent upstream.
  The caller's baggage is never sent on: it is the caller's, not the API's.
- `note`: attributes on the current span. Callers hand in names, codes and statuses only: never an
  argument's value, a secret, a token, a URL with values in it (the test looks at every span exported).
- `count_call`, `count_error`, `observe_upstream`: the metrics beside Prometheus' `/metrics`.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Awaitable, Callable, Iterator, Mapping, MutableMapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

T = TypeVar("T")
DEFAULT_SERVICE = "specbridge"
EXPORT_INTERVAL = 10.0  # seconds between metric exports
_CARRIED = ("traceparent", "tracestate", "baggage")  # what SEP-414 puts in `_meta`
_NOTHING: contextlib.nullcontext[None] = contextlib.nullcontext()


@dataclass(frozen=True, slots=True)
class Settings:
    """Where and what to export. `headers` None: the exporter reads `OTEL_EXPORTER_OTLP_HEADERS`."""

    traces_endpoint: str
    metrics_endpoint: str | None
    headers: Mapping[str, str] | None = None
    service_name: str = DEFAULT_SERVICE
    sample: float = 1.0
    export_interval: float = EXPORT_INTERVAL
    resource: Mapping[str, str] = field(default_factory=dict)


def settings_from(
    endpoint: str | None,
    headers: Mapping[str, str] | None,
    *,
    service_name: str | None = None,
    sample: float = 1.0,
    metrics: bool = True,
    version: str = "",
    env: Mapping[str, str] | None = None,
) -> Settings | None:
    """The settings a gateway runs with: the config's `endpoint` (an OTLP/HTTP base URL: `/v1/traces`
    and `/v1/metrics` are added), else the standard variables; None when neither asks for telemetry or
    `OTEL_SDK_DISABLED` is true."""
    env = os.environ if env is None else env
    if env.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return None
    name = service_name or env.get("OTEL_SERVICE_NAME") or DEFAULT_SERVICE
    resource = {"service.name": name, "service.version": version}
    every = _seconds(env.get("OTEL_METRIC_EXPORT_INTERVAL"), EXPORT_INTERVAL)  # the standard variable, in ms
    if endpoint:
        base = endpoint.rstrip("/")
        found_metrics = f"{base}/v1/metrics" if metrics else None
        return Settings(f"{base}/v1/traces", found_metrics, headers, name, sample, every, resource)
    base = env.get("OTEL_EXPORTER_OTLP_ENDPOINT", "").strip().rstrip("/")
    traces = env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "").strip() or (
        f"{base}/v1/traces" if base else ""
    )
    if not traces:
        return None
    found = env.get("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "").strip() or (
        f"{base}/v1/metrics" if base else ""
    )
    return Settings(traces, found if metrics and found else None, headers, name, sample, every, resource)


def _seconds(milliseconds: str | None, default: float) -> float:
    try:
        found = float(milliseconds) / 1000 if milliseconds else default
    except ValueError:
        return default
    return found if found > 0 else default


class _Running:
    """The providers of one configured process, and the instruments the gateway records with."""

    def __init__(self, settings: Settings) -> None:
        import requests
        from opentelemetry.baggage.propagation import W3CBaggagePropagator
        from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.propagators.composite import CompositePropagator
        from opentelemetry.sdk.metrics import MeterProvider
        from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
        from opentelemetry.sdk.trace.sampling import ParentBased, TraceIdRatioBased
        from opentelemetry.trace import SpanKind
        from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

        def session() -> requests.Session:
            made = requests.Session()
            made.trust_env = False  # proxy variables are ignored, as for every request the gateway sends
            return made

        resource = Resource.create(dict(settings.resource))
        self.tracer_provider = TracerProvider(
            resource=resource, sampler=ParentBased(TraceIdRatioBased(settings.sample))
        )
        exporter = OTLPSpanExporter(
            endpoint=settings.traces_endpoint, headers=settings.headers, session=session()
        )
        self.tracer_provider.add_span_processor(BatchSpanProcessor(exporter))
        self.tracer = self.tracer_provider.get_tracer("specbridge")
        self.server, self.internal = SpanKind.SERVER, SpanKind.INTERNAL
        self.incoming = CompositePropagator([TraceContextTextMapPropagator(), W3CBaggagePropagator()])
        self.outgoing = TraceContextTextMapPropagator()  # traceparent and tracestate; no baggage upstream
        self.meter_provider: Any = None
        if settings.metrics_endpoint is not None:
            metric_exporter = OTLPMetricExporter(
                endpoint=settings.metrics_endpoint, headers=settings.headers, session=session()
            )
            reader = PeriodicExportingMetricReader(
                metric_exporter, export_interval_millis=settings.export_interval * 1000
            )
            self.meter_provider = MeterProvider(resource=resource, metric_readers=[reader])
            meter = self.meter_provider.get_meter("specbridge")
            self.calls = meter.create_counter("gateway.tool.calls", description="Tool calls handled")
            self.errors = meter.create_counter("gateway.tool.errors", description="Error results by code")
            self.latency = meter.create_histogram(
                "gateway.upstream.duration", unit="s", description="Time spent calling the API per call"
            )

    def shutdown(self) -> None:
        self.tracer_provider.shutdown()  # exports the spans still batched
        if self.meter_provider is not None:
            self.meter_provider.shutdown()


_running: _Running | None = None


def start(settings: Settings | None) -> None:
    """Export from now on (`settings` None: stay off). Raises ModuleNotFoundError without the `otel`
    extra; the gateway says which extra to install."""
    global _running
    stop()
    if settings is not None:
        _running = _Running(settings)


def stop() -> None:
    """Export what is left and turn everything off."""
    global _running
    running, _running = _running, None
    if running is not None:
        running.shutdown()


def enabled() -> bool:
    return _running is not None


@contextlib.contextmanager
def _server(
    running: _Running, name: str, attributes: Mapping[str, Any], carrier: Mapping[str, Any] | None
) -> Iterator[Any]:
    parent = running.incoming.extract(carrier) if carrier else None
    with running.tracer.start_as_current_span(
        name, context=parent, kind=running.server, attributes=dict(attributes), record_exception=False
    ) as span:
        yield span


def server_span(
    name: str,
    attributes: Mapping[str, Any],
    meta: Mapping[str, Any] | None,
    headers: Mapping[str, str] | None,
) -> contextlib.AbstractContextManager[Any]:
    """The span of one MCP request, a child of the caller's trace: `_meta`'s context when it carries a
    `traceparent`, else the HTTP request's headers (None over stdio)."""
    running = _running
    if running is None:
        return _NOTHING
    carrier: Mapping[str, Any] | None = None
    if meta and isinstance(meta.get("traceparent"), str):
        carrier = {key: meta[key] for key in _CARRIED if isinstance(meta.get(key), str)}
    elif headers is not None and headers.get("traceparent"):
        carrier = {key: headers[key] for key in _CARRIED if headers.get(key)}
    return _server(running, name, attributes, carrier)


async def _traced(running: _Running, name: str, work: Awaitable[T]) -> T:
    with running.tracer.start_as_current_span(name, kind=running.internal):
        return await work


def step(name: str, work: Awaitable[T]) -> Awaitable[T]:
    """`work` in a span of its own (off: `work` itself, nothing added)."""
    running = _running
    return work if running is None else _traced(running, name, work)


def traced(name: str, function: Callable[..., T], *arguments: Any) -> T:
    """`function(*arguments)` in a span of its own (off: just the call)."""
    running = _running
    if running is None:
        return function(*arguments)
    with running.tracer.start_as_current_span(name, kind=running.internal):
        return function(*arguments)


def note(**attributes: str | int | float | bool | None) -> None:
    """Attributes on the current span (those given None are left out). Names, codes, statuses only."""
    if _running is None:
        return
    from opentelemetry import trace

    span = trace.get_current_span()
    if span.is_recording():
        span.set_attributes({key: value for key, value in attributes.items() if value is not None})


def rename(name: str) -> None:
    """The current span's name, once what it is about is known (a tool that exists)."""
    if _running is None:
        return
    from opentelemetry import trace

    trace.get_current_span().update_name(name)


def inject(headers: MutableMapping[str, str]) -> None:
    """The current span's `traceparent` (and the caller's `tracestate`) on an outgoing request."""
    running = _running
    if running is not None:
        running.outgoing.inject(headers)


def count_call(api: str, tool: str) -> None:
    running = _running
    if running is not None and running.meter_provider is not None:
        running.calls.add(1, {"api": api, "tool": tool})


def count_error(api: str, code: str) -> None:
    running = _running
    if running is not None and running.meter_provider is not None:
        running.errors.add(1, {"api": api, "code": code})


def observe_upstream(api: str, seconds: float) -> None:
    running = _running
    if running is not None and running.meter_provider is not None:
        running.latency.record(seconds, {"api": api})
