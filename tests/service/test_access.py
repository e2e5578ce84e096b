"""Where access rules meet a call (service/_access.py): two places on the line, passed by every call
once, whatever its end; today they let every call by and write nothing."""

from __future__ import annotations

from pathlib import Path

from specbridge import ErrorCode
from specbridge.service._access import admit, audit
from tests.service.conftest import ORDER, counted, harness
from tests.support.upstream import Upstream, json_response


async def test_every_call_passes_admit_before_its_arguments_and_audit_at_its_end(
    tmp_path: Path, upstream: Upstream
) -> None:
    upstream.route("/shops/s1/orders", json_response({"id": "o1"}, status=201))
    async with harness(tmp_path, upstream) as service:
        with counted(admit, audit) as sent:
            done = await service.result("createOrder", ORDER)
        with counted(admit, audit) as refused:
            bad = await service.result("createOrder", {**ORDER, "quantity": 0})
        with counted(admit, audit) as malformed:
            key = await service.result("createOrder", {**ORDER, "idempotency_key": ""})
    assert done.structured == {"id": "o1"}
    assert sent == refused == {"admit": 1, "audit": 1}
    assert bad.code is key.code is ErrorCode.ARGUMENTS_INVALID
    assert malformed == {"admit": 0, "audit": 1}  # a malformed key is refused by the plan, before admit
