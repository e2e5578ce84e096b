"""Documents where they live (document/_fetch.py): an http(s) URL fetched once under the egress rules a
call obeys, its same-origin `$ref`s fetched the same way, and `-` read from stdin, bounded, against a
real HTTP server on loopback."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from specbridge import DocumentError, ErrorCode
from specbridge._files import StreamIdle, read_stream
from specbridge._network import parse_allow
from specbridge.config import api_document, config_from_data
from specbridge.document import FetchRules, load_document
from specbridge.tools import convert
from tests.support.upstream import Upstream, redirect, text_response

MAIN = """\
openapi: 3.1.0
info: {title: Remote, version: '1'}
paths:
  /orders:
    post:
      operationId: createOrder
      requestBody:
        content: {application/json: {schema: {$ref: 'schemas/order.yaml#/Order'}}}
      responses: {'200': {description: ok}}
  /elsewhere:
    post:
      operationId: elsewhere
      requestBody:
        content: {application/json: {schema: {$ref: 'OTHER/schemas/order.yaml#/Order'}}}
      responses: {'200': {description: ok}}
"""
ORDER = "Order: {type: object, required: [sku], properties: {sku: {type: string}, qty: {type: integer}}}\n"


def rules(upstream: Upstream, **settings: object) -> FetchRules:
    return FetchRules(allow=(parse_allow(upstream.address),), **settings)  # type: ignore[arg-type]


def serve_documents(upstream: Upstream, other: str = "http://other.example.com:1") -> None:
    upstream.route(
        "/specs/api.yaml", text_response(MAIN.replace("OTHER", other), content_type="application/yaml")
    )
    upstream.route("/specs/schemas/order.yaml", text_response(ORDER, content_type="application/yaml"))


def test_a_document_at_a_url_is_fetched_and_its_same_origin_refs_followed(upstream: Upstream) -> None:
    serve_documents(upstream)
    document = load_document(f"{upstream.url}/specs/api.yaml", rules=rules(upstream))
    toolset = convert(document)
    order = toolset.get("createOrder")
    assert order is not None and order.input_schema["required"] == ["sku"]
    assert [request.path for request in upstream.requests] == ["/specs/api.yaml", "/specs/schemas/order.yaml"]
    assert "Specbridge" in upstream.requests[0].headers["user-agent"].title()


def test_a_ref_to_another_origin_is_refused_unfetched(upstream: Upstream) -> None:
    with Upstream() as other:
        serve_documents(upstream, other=other.url)
        serve_documents(other)
        allow = (parse_allow(upstream.address), parse_allow(other.address))
        document = load_document(f"{upstream.url}/specs/api.yaml", rules=FetchRules(allow=allow))
        toolset = convert(document)
        assert other.requests == []
    (reason,) = [why for ref, why in toolset.unresolved_refs.items() if ref.startswith(other.url)]
    assert "[ref-refused]" in reason and "another origin" in reason


def test_a_loopback_url_is_refused_without_an_egress_allow_entry(upstream: Upstream) -> None:
    serve_documents(upstream)
    with pytest.raises(DocumentError) as caught:
        load_document(f"{upstream.url}/specs/api.yaml")
    assert caught.value.code is ErrorCode.EGRESS_REFUSED and "egress.allow" in str(caught.value)
    assert upstream.requests == []


def test_a_status_other_than_200_is_document_not_found_with_the_status(upstream: Upstream) -> None:
    upstream.route("/gone.yaml", text_response("no", status=404))
    with pytest.raises(DocumentError) as caught:
        load_document(f"{upstream.url}/gone.yaml", rules=rules(upstream))
    assert caught.value.code is ErrorCode.DOCUMENT_NOT_FOUND and "answered 404" in str(caught.value)


def test_redirects_are_followed_only_as_far_as_the_rules_allow(upstream: Upstream) -> None:
    serve_documents(upstream)
    upstream.route("/latest.yaml", redirect("/specs/api.yaml"))
    with pytest.raises(DocumentError) as caught:
        load_document(f"{upstream.url}/latest.yaml", rules=rules(upstream))
    assert caught.value.code is ErrorCode.DOCUMENT_NOT_FOUND and "egress.redirects allows 0" in str(
        caught.value
    )
    document = load_document(f"{upstream.url}/latest.yaml", rules=rules(upstream, redirects=1))
    assert [op.operation_id for op in document.operations] == ["createOrder", "elsewhere"]


def test_a_document_past_the_size_bound_is_not_read_whole(upstream: Upstream) -> None:
    serve_documents(upstream)
    with pytest.raises(DocumentError) as caught:
        load_document(f"{upstream.url}/specs/api.yaml", rules=rules(upstream, max_bytes=100))
    assert caught.value.code is ErrorCode.DOCUMENT_TOO_LARGE


def test_a_config_spec_url_is_fetched_under_the_api_s_own_egress_rules(
    upstream: Upstream, tmp_path: Path
) -> None:
    serve_documents(upstream)
    data = {
        "apis": {
            "remote": {"spec": f"{upstream.url}/specs/api.yaml", "egress": {"allow": [upstream.address]}}
        }
    }
    api = config_from_data(data, source="specbridge.yaml", base_dir=tmp_path).apis["remote"]
    assert api.spec == f"{upstream.url}/specs/api.yaml"
    assert convert(api_document(api)).get("createOrder") is not None


def test_a_pipe_that_stays_silent_is_given_up_after_its_idle_bound() -> None:
    read_end, write_end = os.pipe()
    try:
        with pytest.raises(StreamIdle):
            read_stream(read_end, 1024, idle=0.05)
        os.write(write_end, b"openapi: 3.1.0\n")
        os.close(write_end)
        write_end = -1
        assert read_stream(read_end, 1024, idle=5) == b"openapi: 3.1.0\n"
    finally:
        os.close(read_end)
        if write_end >= 0:
            os.close(write_end)
