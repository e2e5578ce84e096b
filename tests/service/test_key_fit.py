"""The derived idempotency key fitted to the document's own key field (service/_key_fit.py), alone and
end to end: a small document whose key fields are bounded, called through the gateway."""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from specbridge.service import derived_key, fit_key
from tests.support.gateway import IN_PROCESS, http_client, in_process_gateway, write_config
from tests.support.upstream import Upstream, json_response

DERIVED = hashlib.sha256(b"a derived key").hexdigest()


def accepted(value: Any, schema: dict[str, Any]) -> bool:
    return jsonschema_rs.Draft202012Validator(schema, validate_formats=True).is_valid(value)


def test_a_key_that_already_fits_is_sent_unchanged() -> None:
    assert fit_key(DERIVED, {"type": "string"}) == DERIVED
    assert fit_key(DERIVED, {"type": "string", "maxLength": 255}) == DERIVED
    assert fit_key(DERIVED, None) == DERIVED


@pytest.mark.parametrize(
    ("schema", "length", "alphabet"),
    [
        ({"type": "string", "maxLength": 45}, 45, r"[A-Za-z0-9]"),
        ({"type": "string", "maxLength": 50, "pattern": "^[a-z0-9-]+$"}, 50, r"[a-z0-9-]"),
        ({"type": "string", "pattern": "^[A-Z0-9]{10,20}$"}, 20, r"[A-Z0-9]"),
        ({"type": "string", "minLength": 8, "maxLength": 16, "pattern": "^[a-z]+$"}, 16, r"[a-z]"),
        ({"type": "string", "pattern": "^key_[a-zA-Z0-9]{1,40}$"}, 44, r"[a-zA-Z0-9_]"),
        ({"type": "string", "maxLength": 30, "pattern": "^\\S+$"}, 30, r"[A-Za-z0-9_-]"),
    ],
)
def test_a_bounded_key_field_gets_as_many_characters_from_as_wide_an_alphabet_as_it_allows(
    schema: dict[str, Any], length: int, alphabet: str
) -> None:
    key = fit_key(DERIVED, schema)
    assert key is not None and accepted(key, schema)
    assert len(key) == length and re.fullmatch(f"{alphabet}+", key)


def test_a_uuid_key_field_gets_a_version_4_uuid_made_from_the_derived_key() -> None:
    key = fit_key(DERIVED, {"type": "string", "format": "uuid"})
    assert key is not None and uuid.UUID(key).version == 4
    assert key == fit_key(DERIVED, {"type": "string", "format": "uuid"})  # the same on every instance
    assert key != fit_key(hashlib.sha256(b"another").hexdigest(), {"type": "string", "format": "uuid"})


def test_a_uuid_pattern_is_followed_character_class_by_character_class() -> None:
    pattern = "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"
    key = fit_key(DERIVED, {"type": "string", "pattern": pattern})
    assert key is not None and re.fullmatch(pattern, key)


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "integer"},
        {"type": "string", "enum": ["a", "b"]},
        {"type": "string", "minLength": 20, "maxLength": 10},
        {"type": "string", "pattern": "^(?=x)y$"},
    ],
)
def test_a_field_no_key_can_satisfy_gets_none(schema: dict[str, Any]) -> None:
    assert fit_key(DERIVED, schema) is None


@given(
    st.integers(min_value=1, max_value=80),
    st.sampled_from(["", "^[a-z]+$", "^[A-Za-z0-9_-]+$", "^[0-9]+$", "^\\w+$", "^[^/]+$", "^(ab|cd)+$"]),
)
def test_whatever_the_bounds_a_fitted_key_satisfies_the_field(high: int, pattern: str) -> None:
    schema: dict[str, Any] = {"type": "string", "maxLength": high}
    if pattern:
        schema["pattern"] = pattern
    key = fit_key(DERIVED, schema)
    if pattern == "^(ab|cd)+$" and high < 2:  # no string of one character matches: nothing can fit
        assert key is None
        return
    assert key is not None and accepted(key, schema)


SPEC = """\
openapi: 3.0.3
info: {title: Bounded keys, version: '1'}
paths:
  /payments:
    post:
      operationId: createPayment
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [amount]
              properties:
                amount: {type: integer}
                idempotency_key: {type: string, maxLength: 45}
      responses: {'200': {description: ok}}
  /refunds:
    post:
      operationId: createRefund
      parameters:
        - {name: Idempotency-Key, in: header, required: true, schema: {type: string, format: uuid}}
      responses: {'200': {description: ok}}
"""


async def test_the_gateway_forwards_a_key_each_bounded_field_accepts(
    tmp_path: Path, upstream: Upstream
) -> None:
    upstream.route("/payments", json_response({"id": "p1"}))
    upstream.route("/refunds", json_response({"id": "r1"}))
    config = write_config(tmp_path, upstream, spec=SPEC)
    async with (
        in_process_gateway(config) as (transport, _),
        http_client(f"{IN_PROCESS}/mcp", transport=transport) as client,
    ):
        paid = await client.call_tool("createPayment", {"amount": 5, "idempotency_key": "pay-1"})
        refunded = await client.call_tool("createRefund", {"idempotency_key": "refund-1"})
    assert not paid.is_error and not refunded.is_error
    payment, refund = upstream.requests
    sent = json.loads(payment.body)["idempotency_key"]
    assert len(sent) == 45 and sent == fit_key(
        derived_key(("shop", "", "createPayment"), "pay-1"), {"maxLength": 45}
    )
    header = refund.headers["idempotency-key"]
    assert uuid.UUID(header).version == 4 and "refund-1" not in header
