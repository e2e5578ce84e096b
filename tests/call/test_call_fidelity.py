"""Request fidelity: a sample of the corpus called through `specbridge serve` with the official MCP
client, each recorded request accepted by openapi-core against the original document (the harness of
bench/fidelity.py); and each leniency the harness gives openapi-core, shown to be needed."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.support.fidelity import PASSES, documents, measure
from tests.support.fidelity_validator import ValidatorRequest, lenient
from tests.support.upstream import RecordedRequest

pytest.importorskip("openapi_core", reason="openapi-core is a dev extra (pip install -e .[dev])")

SAMPLE_MAX_BYTES = 800_000
SAMPLE_PER_DOCUMENT = 40


@pytest.mark.skipif(not documents(SAMPLE_MAX_BYTES), reason="the corpus (../shared/corpus) is absent")
async def test_a_corpus_sample_called_through_serve_is_accepted_by_openapi_core_in_both_passes() -> None:
    with warnings.catch_warnings(), anyio.fail_after(600):
        warnings.simplefilter("ignore")  # openapi-core's own deprecation warnings are not ours
        stats = await measure(documents(SAMPLE_MAX_BYTES), sample=SAMPLE_PER_DOCUMENT)
    for mode in PASSES:
        result = stats[mode]
        assert result.operations >= 300, mode
        # Not judged (no request could satisfy the document, or openapi-core cannot read it) stays rare.
        assert sum(result.unverifiable.values()) <= 0.02 * result.operations, (mode, result.unverifiable)
        assert result.share >= 0.99, (mode, result.failures, result.examples)


FIDELITY_DOCUMENTS = Path(__file__).with_name("fidelity_documents")


async def test_small_documents_of_each_fidelity_rule_are_accepted_in_both_passes_through_serve() -> None:
    """One small document per rule of issue 22: key fields the derived idempotency key must fit
    (`maxLength`, `format: uuid`, `pattern`), read-only properties required in another `allOf` part,
    `format: byte` bodies, discriminated branches inherited through `allOf` (JSON and a multipart part),
    a `oneOf` that discriminates without saying so, and a required form object that may be empty; and
    of issue 34: a base schema's read-only `type` a subtype requires as an enum (PagerDuty)."""
    paths = sorted(FIDELITY_DOCUMENTS.glob("*.yaml"))
    with warnings.catch_warnings(), anyio.fail_after(300):
        warnings.simplefilter("ignore")
        stats = await measure(paths)
    for mode in PASSES:
        result = stats[mode]
        assert result.operations == 18 and not result.unverifiable, (mode, result.unverifiable)
        assert result.accepted == result.operations, (mode, result.failures, result.examples)


def _validate(document: dict[str, Any], request: RecordedRequest, *, decode_path: bool = True) -> None:
    from openapi_core import OpenAPI

    spec = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "servers": [{"url": "http://h"}]}
    OpenAPI.from_dict({**spec, **document}).validate_request(
        ValidatorRequest("http://h", request, decode_path=decode_path)
    )


def _request(target: str, body: bytes = b"", content_type: str = "", method: str = "POST") -> RecordedRequest:
    headers = [("Content-Type", content_type)] if content_type else []
    return RecordedRequest(method, target, {k.lower(): v for k, v in headers}, headers, body)


def _post(content_type: str, schema: dict[str, Any], **media: Any) -> dict[str, Any]:
    body = {"required": True, "content": {content_type: {"schema": schema, **media}}}
    return {"paths": {"/a": {"post": {"requestBody": body, "responses": {"200": {"description": "ok"}}}}}}


def _without_and_with(check: Any) -> None:
    with pytest.raises(Exception):  # noqa: B017 - openapi-core's own error classes vary by leniency
        check()
    with lenient():
        check()


def test_leniency_path_servers_decode_percent_encoding_before_reading_parameters() -> None:
    document = {
        "paths": {
            "/c/{id}": {
                "get": {
                    "parameters": [
                        {"name": "id", "in": "path", "required": True, "schema": {"pattern": "^urn:"}}
                    ],
                    "responses": {"200": {"description": "ok"}},
                }
            }
        }
    }
    request = _request("/c/urn%3Ax", method="GET")
    with pytest.raises(Exception):  # noqa: B017
        _validate(document, request, decode_path=False)
    _validate(document, request)


def test_leniency_deep_object_nested_objects_and_arrays_are_read_as_stripe_style_servers_read_them() -> None:
    schema = {
        "type": "object",
        "properties": {
            "c": {
                "type": "object",
                "properties": {"o": {"type": "object", "properties": {"on": {"type": "boolean"}}}},
            },
            "e": {"type": "array", "items": {"type": "string"}},
        },
    }
    document = _post(
        "application/x-www-form-urlencoded",
        schema,
        encoding={name: {"style": "deepObject", "explode": True} for name in ("c", "e")},
    )
    body = b"c%5Bo%5D%5Bon%5D=true&e%5B%5D=x&e%5B%5D=y"
    _without_and_with(lambda: _validate(document, _request("/a", body, "application/x-www-form-urlencoded")))


def test_leniency_every_plus_json_media_type_is_read_as_json() -> None:
    document = _post("application/merge-patch+json", {"type": "object"})
    _without_and_with(lambda: _validate(document, _request("/a", b"{}", "application/merge-patch+json")))


def test_leniency_binary_parts_reach_the_schema_check_as_text() -> None:
    document = _post(
        "multipart/form-data",
        {"type": "object", "properties": {"file": {"type": "string", "format": "binary"}}},
    )
    body = (
        b'--b\r\nContent-Disposition: form-data; name="file"; filename="f"\r\n'
        b"Content-Type: application/octet-stream\r\n\r\n\x89PNG\r\n--b--\r\n"
    )
    _without_and_with(lambda: _validate(document, _request("/a", body, "multipart/form-data; boundary=b")))


def test_leniency_multipart_text_parts_are_cast_to_their_property_s_type() -> None:
    document = _post("multipart/form-data", {"type": "object", "properties": {"n": {"type": "integer"}}})
    body = b'--b\r\nContent-Disposition: form-data; name="n"\r\n\r\n7\r\n--b--\r\n'
    _without_and_with(lambda: _validate(document, _request("/a", body, "multipart/form-data; boundary=b")))


def test_leniency_multipart_json_a_one_of_part_sent_as_json_is_read_as_the_object_it_is() -> None:
    cat = {"type": "object", "required": ["kind"], "properties": {"kind": {"const": "cat"}}}
    dog = {"type": "object", "required": ["kind"], "properties": {"kind": {"const": "dog"}}}
    document = _post(
        "multipart/form-data",
        {"type": "object", "required": ["pet"], "properties": {"pet": {"oneOf": [cat, dog]}}},
    )
    body = (
        b'--b\r\nContent-Disposition: form-data; name="pet"\r\nContent-Type: application/json\r\n\r\n'
        b'{"kind": "cat"}\r\n--b--\r\n'
    )
    _without_and_with(lambda: _validate(document, _request("/a", body, "multipart/form-data; boundary=b")))


def test_leniency_required_read_only_a_property_read_only_in_another_all_of_part_is_not_required() -> None:
    from tests.support.fidelity_validator import required_without_read_only

    schema = {
        "allOf": [
            {"$ref": "#/components/schemas/Identified"},
            {"type": "object", "required": ["gid", "text"], "properties": {"text": {"type": "string"}}},
        ]
    }
    identified = {"type": "object", "properties": {"gid": {"type": "string", "readOnly": True}}}
    document = {**_post("application/json", schema), "components": {"schemas": {"Identified": identified}}}
    request = _request("/a", b'{"text": "hi"}', "application/json")
    with pytest.raises(Exception):  # noqa: B017
        _validate(document, request)
    _validate(required_without_read_only(document), request)


def test_leniency_read_only_redeclared_a_subtype_s_writable_type_is_sendable_beside_its_read_only_base() -> (
    None
):
    from tests.support.fidelity_validator import writable_where_redeclared

    reference = {"type": "object", "properties": {"type": {"type": "string", "readOnly": True}}}
    tag = {
        "allOf": [
            {"$ref": "#/components/schemas/Reference"},
            {
                "type": "object",
                "required": ["type"],
                "properties": {"type": {"type": "string", "enum": ["tag"]}},
            },
        ]
    }
    document = {
        **_post("application/json", {"$ref": "#/components/schemas/Tag"}),
        "openapi": "3.0.3",
        "components": {"schemas": {"Reference": reference, "Tag": tag}},
    }
    request = _request("/a", b'{"type": "tag"}', "application/json")
    with pytest.raises(Exception):  # noqa: B017 - OpenAPI 3.0's write check: "read-only property"
        _validate(document, request)
    _validate(writable_where_redeclared(document), request)
    with pytest.raises(Exception):  # noqa: B017 - the subtype's enum still holds
        _validate(writable_where_redeclared(document), _request("/a", b'{"type": "x"}', "application/json"))


def test_leniency_parameter_read_only_a_parameter_schema_shared_with_a_read_only_property_is_sendable() -> (
    None
):
    from tests.support.fidelity_validator import parameters_without_read_only

    document = {
        "openapi": "3.0.3",
        "paths": {
            "/alerts/{n}": {
                "get": {
                    "parameters": [
                        {
                            "name": "n",
                            "in": "path",
                            "required": True,
                            "schema": {"$ref": "#/components/schemas/N"},
                        }
                    ],
                    "responses": {"200": {"description": "ok"}},
                }
            }
        },
        "components": {"schemas": {"N": {"type": "integer", "readOnly": True}}},
    }
    request = _request("/alerts/7", method="GET")
    with pytest.raises(Exception):  # noqa: B017
        _validate(document, request)
    _validate(parameters_without_read_only(document), request)


def test_leniency_discriminator_a_value_without_a_mapping_entry_is_checked_by_one_of_alone() -> None:
    from tests.support.fidelity_validator import without_discriminators

    message = {
        "type": "object",
        "required": ["role"],
        "properties": {"role": {"enum": ["developer"]}, "content": {"type": "string"}},
    }
    other = {"type": "object", "required": ["role"], "properties": {"role": {"enum": ["user"]}}}
    schema = {
        "oneOf": [
            {"$ref": "#/components/schemas/DeveloperMessage"},
            {"$ref": "#/components/schemas/UserMessage"},
        ],
        "discriminator": {"propertyName": "role"},
    }
    document = {
        **_post("application/json", schema),
        "components": {"schemas": {"DeveloperMessage": message, "UserMessage": other}},
    }
    request = _request("/a", b'{"role": "developer", "content": "hi"}', "application/json")
    with pytest.raises(Exception):  # noqa: B017
        _validate(document, request)
    _validate(without_discriminators(document), request)


def test_a_form_field_openapi_core_never_reads_is_a_failure_not_a_pass() -> None:
    from tests.support.fidelity_validator import FieldNotRead, judge

    schema = {
        "type": "object",
        "properties": {"c": {"type": "object", "properties": {"o": {"type": "string"}}}},
    }
    document = _post("application/x-www-form-urlencoded", schema, encoding={"c": {"style": "deepObject"}})
    spec = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "servers": [{"url": "http://h"}]}
    from openapi_core import OpenAPI

    openapi = OpenAPI.from_dict({**spec, **document})
    undeclared = _request("/a", b"c%5Bo%5D=x&extra=1", "application/x-www-form-urlencoded")
    with lenient():
        openapi.validate_request(ValidatorRequest("http://h", undeclared))  # openapi-core alone lets it pass
        with pytest.raises(FieldNotRead):
            judge(openapi, ValidatorRequest("http://h", undeclared))
        judge(
            openapi,
            ValidatorRequest("http://h", _request("/a", b"c%5Bo%5D=x", "application/x-www-form-urlencoded")),
        )
