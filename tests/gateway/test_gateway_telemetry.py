"""OpenTelemetry through `specbridge serve` to a real OTLP/HTTP receiver on loopback that decodes what
arrives: a span per MCP request, a child of the caller's trace (its `_meta`, else its HTTP headers), a span
per step of the call line, the gateway's own `traceparent` upstream, the metrics; and in every span
exported, not one argument value, secret or token."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from opentelemetry import context, trace
from opentelemetry.trace import NonRecordingSpan, SpanContext, SpanKind, TraceFlags

from specbridge import ErrorCode, SpecbridgeError
from specbridge.access import key_sha256, new_key
from specbridge.config import load_config
from specbridge.gateway import Gateway
from tests.support.gateway import http_client, write_config
from tests.support.otlp import Receiver, otlp_receiver
from tests.support.processes import gateway_process
from tests.support.upstream import Upstream, json_response

KEY = new_key()
API_TOKEN = "upstream-token-7f3a9c2e5b1d"
OTLP_KEY = "otlp-header-secret-c0ffee42"
PRODUCT_ID = "argument-value-9d8e7f6a"
QUANTITY = 918273
TRACE_ID = 0x4BF92F3577B34DA6A3CE929D0E0E4736
CALLER_SPAN = 0x00F067AA0BA902B7
STEPS = {"call.admit", "call.plan", "call.check", "call.resolve", "call.send"}


def _config(tmp_path: Path, upstream: Upstream, receiver: Receiver) -> Path:
    config = write_config(
        tmp_path,
        upstream,
        extra="auth: {type: bearer, secret: env:SHOP_TOKEN}\n",
        clients=f"clients:\n  bot: {{key_sha256: {key_sha256(KEY)}, apis: [shop]}}\n",
    )
    telemetry = (
        f"telemetry:\n  endpoint: {receiver.url}\n  headers: {{x-otlp-key: env:OTLP_KEY}}\n"
        "  service_name: shop-gateway\n"
    )
    config.write_text(config.read_text(encoding="utf-8") + telemetry, encoding="utf-8")
    return config


ENV = {
    "SHOP_TOKEN": API_TOKEN,
    "OTLP_KEY": OTLP_KEY,
    "OTEL_BSP_SCHEDULE_DELAY": "50",  # export spans at once, not every 5 s
    "OTEL_METRIC_EXPORT_INTERVAL": "200",
}


@contextlib.contextmanager
def _in_callers_trace() -> Iterator[None]:
    """The caller's own trace as current context: the SDK client puts it in `_meta` (SEP-414)."""
    caller = SpanContext(TRACE_ID, CALLER_SPAN, is_remote=False, trace_flags=TraceFlags(TraceFlags.SAMPLED))
    token = context.attach(trace.set_span_in_context(NonRecordingSpan(caller)))
    try:
        yield
    finally:
        context.detach(token)


async def test_a_call_is_traced_in_the_callers_trace_to_the_upstream_and_no_span_holds_a_value_or_secret(
    tmp_path: Path, upstream: Upstream
) -> None:
    upstream.route(f"/products/{PRODUCT_ID}", json_response({"id": PRODUCT_ID, "name": "Mug"}))
    upstream.route("/shops/s1/orders", json_response({"id": "o1"}, status=201))
    with otlp_receiver() as receiver:
        async with gateway_process(_config(tmp_path, upstream, receiver), env=ENV) as running:
            async with http_client(f"{running.base}/mcp", key=KEY, mode="2026-07-28") as client:
                with _in_callers_trace():
                    got = await client.call_tool("getProduct", {"id": PRODUCT_ID})
                    ordered = await client.call_tool(
                        "createOrder", {"shopId": "s1", "product": PRODUCT_ID, "quantity": QUANTITY}
                    )
                    refused = await client.call_tool(
                        "createOrder", {"shopId": "s1", "quantity": "not a number"}
                    )

            def arrived(found: Receiver) -> bool:
                names = {span.name for span in found.spans}
                return (
                    {"tools/call getProduct", "tools/call createOrder"} <= names
                    and names >= STEPS
                    and {
                        "gateway.tool.calls",
                        "gateway.upstream.duration",
                    }
                    <= found.metrics
                )

            assert await anyio.to_thread.run_sync(receiver.wait_for, arrived)
    assert not got.is_error and not ordered.is_error and refused.is_error
    spans = receiver.spans
    by_id = {span.span_id: span for span in spans}
    (server,) = [span for span in spans if span.name == "tools/call getProduct"]
    assert server.kind == SpanKind.SERVER.value + 1  # OTLP's enum counts UNSPECIFIED first
    assert (server.trace_id, server.parent_span_id) == (f"{TRACE_ID:032x}", f"{CALLER_SPAN:016x}")
    assert server.attributes["gen_ai.tool.name"] == "getProduct"
    assert server.attributes["gateway.outcome"] == "ok"
    assert server.resource["service.name"] == "shop-gateway"
    for span in spans:  # every step sits in the caller's trace, under its request's span
        assert span.trace_id == f"{TRACE_ID:032x}"
        root = span
        while root.parent_span_id in by_id:
            root = by_id[root.parent_span_id]
        assert root.kind == server.kind and root.parent_span_id == f"{CALLER_SPAN:016x}"
    sent = next(request for request in upstream.requests if request.path == f"/products/{PRODUCT_ID}")
    version, trace_id, span_id, _ = sent.headers["traceparent"].split("-")
    assert (version, trace_id) == ("00", f"{TRACE_ID:032x}")
    assert by_id[span_id].name == "call.send"
    assert all(headers.get("x-otlp-key") == OTLP_KEY for headers in receiver.headers)
    for span in spans:
        text = span.text()
        for never in (PRODUCT_ID, str(QUANTITY), "not a number", API_TOKEN, KEY, OTLP_KEY, key_sha256(KEY)):
            assert never not in text, (never, span.name)


async def test_without_a_traceparent_in_meta_the_http_headers_give_the_parent(
    tmp_path: Path, upstream: Upstream
) -> None:
    header = f"00-{TRACE_ID:032x}-{CALLER_SPAN:016x}-01"
    with otlp_receiver() as receiver:
        async with gateway_process(_config(tmp_path, upstream, receiver), env=ENV) as running:
            headers = {"Authorization": f"Bearer {KEY}", "traceparent": header}
            async with (
                create_mcp_http_client(headers=headers) as http,
                Client(
                    streamable_http_client(f"{running.base}/mcp", http_client=http), mode="2026-07-28"
                ) as client,
            ):
                await client.list_tools()

            def listed(found: Receiver) -> bool:
                return any(span.name == "tools/list" for span in found.spans)

            assert await anyio.to_thread.run_sync(receiver.wait_for, listed)
    (span,) = [span for span in receiver.spans if span.name == "tools/list"]
    assert (span.trace_id, span.parent_span_id) == (f"{TRACE_ID:032x}", f"{CALLER_SPAN:016x}")


async def test_asked_to_export_without_the_otel_extra_the_start_says_which_extra_to_install(
    tmp_path: Path, upstream: Upstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "opentelemetry.sdk.trace", None)  # as if the extra were not installed
    config = write_config(tmp_path, upstream)
    config.write_text(config.read_text(encoding="utf-8") + "telemetry: {endpoint: 'http://127.0.0.1:9'}\n")
    gateway = Gateway(load_config(config), config_path=str(config))
    with pytest.raises(SpecbridgeError) as refused:
        await gateway.start()
    await gateway.aclose()
    assert refused.value.code is ErrorCode.EXTRA_MISSING and "specbridge[otel]" in refused.value.message
