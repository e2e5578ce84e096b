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
from tests.support.upstream import Reply, Upstream, redirect, slow_drip, text_response

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


def test_a_server_dripping_its_document_is_given_up_at_the_fetchs_whole_timeout(upstream: Upstream) -> None:
    # one byte every 0.2 s for 12 s: no single read waits its timeout, the whole fetch is over it
    upstream.route("/drip.yaml", slow_drip(interval=0.2, total=60))
    with pytest.raises(DocumentError) as caught:
        load_document(f"{upstream.url}/drip.yaml", rules=rules(upstream, timeout=1.0))
    assert caught.value.code is ErrorCode.DOCUMENT_NOT_FOUND
    assert "no whole answer within 1 s" in str(caught.value)


def test_a_server_dripping_its_headers_is_given_up_at_the_fetchs_whole_timeout(upstream: Upstream) -> None:
    filler = [(f"X-Filler-{index}", "y" * 20) for index in range(10)]  # about 300 bytes: 30 s at 0.1 s each
    upstream.route("/head.yaml", Reply(200, filler, MAIN.encode(), head_drip=0.1))
    with pytest.raises(DocumentError) as caught:
        load_document(f"{upstream.url}/head.yaml", rules=rules(upstream, timeout=1.0))
    assert caught.value.code is ErrorCode.DOCUMENT_NOT_FOUND
    assert "no whole answer within 1 s" in str(caught.value)


def test_a_fetched_documents_refs_share_one_size_budget_with_it(upstream: Upstream) -> None:
    # the review's six 60 MB refs, in small: each is under the size bound, together they are over it
    paths = "".join(
        f"  /op{index}:\n    post:\n      operationId: op{index}\n      requestBody:\n"
        f"        content: {{application/json: {{schema: {{$ref: 'big{index}.yaml#/S'}}}}}}\n"
        f"      responses: {{'200': {{description: ok}}}}\n"
        for index in range(6)
    )
    main = f"openapi: 3.1.0\ninfo: {{title: Refs, version: '1'}}\npaths:\n{paths}"
    big = "S: {type: object, description: '" + "x" * 700 + "'}\n"
    upstream.route("/specs/api.yaml", text_response(main, content_type="application/yaml"))
    for index in range(6):
        upstream.route(f"/specs/big{index}.yaml", text_response(big, content_type="application/yaml"))
    bound = len(main) + 2 * len(big) + 100  # the document and two of its refs
    toolset = convert(load_document(f"{upstream.url}/specs/api.yaml", rules=rules(upstream, max_bytes=bound)))
    over = [why for why in toolset.unresolved_refs.values() if "[document-too-large]" in why]
    assert len(over) == 4
    assert "the document and the $refs fetched for it may hold" in over[0]
    fetched = [request for request in upstream.requests if request.path.startswith("/specs/big")]
    assert len(main) + len(fetched) * len(big) <= bound + len(big)  # the last one read up to the bound


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
