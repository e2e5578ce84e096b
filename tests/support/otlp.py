"""A real OTLP/HTTP receiver on loopback (protobuf, as the OpenTelemetry Collector takes it), decoding what
arrives with `opentelemetry-proto`: the spans and metric names a gateway exported, each span with its
trace and parent ids, kind, attributes, events and its resource's attributes."""

from __future__ import annotations

import contextlib
import gzip
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
    ExportMetricsServiceResponse,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue


@dataclass(frozen=True)
class ReceivedSpan:
    name: str
    kind: int
    trace_id: str
    span_id: str
    parent_span_id: str
    attributes: dict[str, Any]
    resource: dict[str, Any]
    events: tuple[str, ...] = ()
    status_message: str = ""

    def text(self) -> str:
        """Everything this span carries as one text, to look through for what must never be there."""
        return repr((self.name, self.attributes, self.resource, self.events, self.status_message))


@dataclass
class Receiver:
    url: str = ""
    spans: list[ReceivedSpan] = field(default_factory=list)
    metrics: set[str] = field(default_factory=set)
    headers: list[dict[str, str]] = field(default_factory=list)
    changed: threading.Condition = field(default_factory=threading.Condition)

    def wait_for(self, found: Callable[[Receiver], bool], timeout: float = 20.0) -> bool:
        with self.changed:
            return self.changed.wait_for(lambda: found(self), timeout)


def _value(value: AnyValue) -> Any:
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return [_value(item) for item in value.array_value.values]
    if kind == "kvlist_value":
        return {item.key: _value(item.value) for item in value.kvlist_value.values}
    return getattr(value, kind) if kind else None


def _attributes(items: Any) -> dict[str, Any]:
    return {item.key: _value(item.value) for item in items}


@contextlib.contextmanager
def otlp_receiver() -> Iterator[Receiver]:
    receiver = Receiver()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length", "0")))
            if self.headers.get("content-encoding") == "gzip":
                body = gzip.decompress(body)
            with receiver.changed:
                receiver.headers.append({key.lower(): value for key, value in self.headers.items()})
                if self.path == "/v1/traces":
                    request = ExportTraceServiceRequest.FromString(body)
                    for resource_spans in request.resource_spans:
                        resource = _attributes(resource_spans.resource.attributes)
                        for scope in resource_spans.scope_spans:
                            for span in scope.spans:
                                receiver.spans.append(
                                    ReceivedSpan(
                                        name=span.name,
                                        kind=span.kind,
                                        trace_id=span.trace_id.hex(),
                                        span_id=span.span_id.hex(),
                                        parent_span_id=span.parent_span_id.hex(),
                                        attributes=_attributes(span.attributes),
                                        resource=resource,
                                        events=tuple(
                                            repr((e.name, _attributes(e.attributes))) for e in span.events
                                        ),
                                        status_message=span.status.message,
                                    )
                                )
                    answer = ExportTraceServiceResponse().SerializeToString()
                elif self.path == "/v1/metrics":
                    metrics = ExportMetricsServiceRequest.FromString(body)
                    for resource_metrics in metrics.resource_metrics:
                        for scope in resource_metrics.scope_metrics:
                            receiver.metrics.update(metric.name for metric in scope.metrics)
                    answer = ExportMetricsServiceResponse().SerializeToString()
                else:
                    self.send_response(404)
                    self.end_headers()
                    return
                receiver.changed.notify_all()
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    receiver.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        server.shutdown()
        server.server_close()
