"""The one fingerprint of a call (service/_fingerprint.py): equal JSON hashes equally, and every part of
"the same call" counts, the tool's operation included (a reload that changes it voids an approval)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from specbridge._json import dumps_bytes
from specbridge.service._fingerprint import fingerprint, operation_digest
from specbridge.tools import Tool
from tests.service._harness import harness
from tests.support.upstream import Upstream

SCOPE = ("shop", "bot", "refundOrder")
ARGS = {"orderId": "o-1", "amount": 25, "lines": [{"sku": "a", "qty": 1}]}


async def test_key_order_does_not_matter_and_every_part_of_the_call_does(
    tmp_path: Path, upstream: Upstream
) -> None:
    async with harness(tmp_path, upstream) as service:
        tool: Tool = service.tool("createOrder")
    bound, base = {"body.currency": "EUR"}, "https://api.example.com"
    same = fingerprint(SCOPE, ARGS, bound, tool, base)
    reordered = {"lines": [{"qty": 1, "sku": "a"}], "amount": 25, "orderId": "o-1"}
    assert fingerprint(SCOPE, reordered, {"body.currency": "EUR"}, tool, base) == same
    others = [
        fingerprint(("shop", "other-client", "refundOrder"), ARGS, bound, tool, base),
        fingerprint(SCOPE, {**ARGS, "amount": 26}, bound, tool, base),
        fingerprint(SCOPE, ARGS, {"body.currency": "USD"}, tool, base),
        fingerprint(SCOPE, ARGS, bound, replace(tool, operation=replace(tool.operation, method="PUT")), base),
    ]
    assert same not in others and len(set(others)) == 4
    assert dumps_bytes({"b": [{"d": 1, "c": 2}], "a": 10**30}, sort_keys=True).replace(b" ", b"") == (
        b'{"a":1000000000000000000000000000000,"b":[{"c":2,"d":1}]}'  # integers past 64 bits too
    )


async def test_the_operation_digest_follows_what_is_sent_not_what_is_said(
    tmp_path: Path, upstream: Upstream
) -> None:
    async with harness(tmp_path, upstream) as service:
        tool: Tool = service.tool("createOrder")
    digest = operation_digest(tool, "https://api.example.com")
    assert (
        operation_digest(replace(tool, description="Another text entirely"), "https://api.example.com")
        == digest
    )
    moved = replace(tool, operation=replace(tool.operation, path="/shops/{shopId}/refunds"))
    remapped = replace(tool, arguments=tuple(replace(a, original=a.original + "X") for a in tool.arguments))
    changed = [
        operation_digest(moved, "https://api.example.com"),
        operation_digest(remapped, "https://api.example.com"),
        operation_digest(
            replace(tool, operation=replace(tool.operation, method="PUT")), "https://api.example.com"
        ),
        operation_digest(tool, "https://elsewhere.example.com"),
    ]
    assert digest not in changed and len(set(changed)) == 4
