"""Steps 2-4 (service/_resolving.py): the arguments checked once (large ones off the event loop), then
files, bindings and the caller's secret resolved into the one request; whatever cannot be sent is a
refusal here, naming the field, with nothing sent and nothing claimed."""

from __future__ import annotations

from pathlib import Path

from specbridge import ErrorCode
from specbridge.call import CallResult
from specbridge.call._checked import checked
from specbridge.service._planning import plan
from specbridge.service._request import Planned, Ready
from specbridge.service._resolving import check, resolve
from tests.service.conftest import counted, harness
from tests.support.upstream import Upstream, json_response


async def test_small_arguments_are_checked_on_the_loop_and_large_ones_never_are(
    tmp_path: Path, upstream: Upstream
) -> None:
    small = {"orders": [{"product": "p1", "quantity": 1}]}
    large = {"orders": [{"product": f"product-{n}", "quantity": n} for n in range(500)]}  # ~20 KB
    async with harness(tmp_path, upstream) as service:
        for arguments, on_the_loop in ((small, 1), (large, 0)):
            planned = plan(service.request("importOrders", arguments))
            assert isinstance(planned, Planned)
            with counted(checked) as counts:  # a profile hook sees this thread only
                found = await check(planned)
            assert not isinstance(found, CallResult) and found[0] == arguments
            assert counts == {"checked": on_the_loop}
        bad = plan(service.request("importOrders", {"orders": [{"quantity": "many"}] * 500}))
        assert isinstance(bad, Planned)
        refused = await check(bad)
    assert isinstance(refused, CallResult) and refused.code is ErrorCode.ARGUMENTS_INVALID
    assert "orders[0].quantity" in refused.text


async def ready_or_result(service: object, tool: str, arguments: dict[str, object]) -> Ready | CallResult:
    planned = plan(service.request(tool, arguments))  # type: ignore[attr-defined]
    assert isinstance(planned, Planned)
    found = await check(planned)
    if isinstance(found, CallResult):
        return found
    return await resolve(planned, found, service.files)  # type: ignore[attr-defined]


async def test_another_clients_file_is_not_found_and_nothing_is_claimed_or_sent(
    tmp_path: Path, upstream: Upstream, store_url: str
) -> None:
    async with harness(tmp_path, upstream, store_url) as service:
        theirs = await service.files.put("someone-else", b"their bytes", "application/pdf", "a.pdf")
        made = await ready_or_result(service, "putBlob", {"name": "b1", "body": {"file_id": theirs.id}})
    assert isinstance(made, CallResult) and made.code is ErrorCode.FILE_NOT_FOUND
    assert upstream.requests == []


async def test_a_files_type_that_cannot_be_a_header_is_the_agents_to_fix_naming_the_field(
    tmp_path: Path, upstream: Upstream
) -> None:
    upstream.route("/blobs/b1", json_response({"stored": True}))
    async with harness(tmp_path, upstream) as service:
        mine = await service.files.put("-", b"bytes", "application/octet-stream", "a.bin")
        results = [
            await service.result(
                "putBlob", {"name": "b1", "body": {"file_id": mine.id, "content_type": kind}}
            )
            for kind in ("text/plain\n", "text/pl\u00e4in", "text/plain\r\nX-Evil: 1", "two words")
        ]
        fine = await service.result(
            "putBlob",
            {"name": "b1", "body": {"file_id": mine.id, "content_type": "text/plain; charset=utf-8"}},
        )
    for result in results:
        assert (result.code, result.is_error) == (ErrorCode.ARGUMENTS_INVALID, True), result.text
        assert "body.content_type" in result.text
    assert fine.structured == {"stored": True}
    assert len(upstream.requests) == 1


async def test_a_secret_that_cannot_be_read_is_refused_before_anything_is_claimed(
    tmp_path: Path, upstream: Upstream
) -> None:
    auth = {"type": "bearer", "secret": "env:SPECBRIDGE_TEST_NOT_SET_ANYWHERE"}
    async with harness(tmp_path, upstream, auth=auth) as service:
        keyed = {"shopId": "s1", "product": "p", "quantity": 1, "idempotency_key": "k"}
        made = await service.result("createOrder", keyed)
        opened = service.approvals.store  # a refusal before the store: not even opened for the key
    assert made.code is ErrorCode.SECRET_UNAVAILABLE and "nothing was sent" in made.text
    assert opened is None
    assert upstream.requests == []


async def test_the_derived_key_is_bound_in_and_part_of_the_call_s_fingerprint(
    tmp_path: Path, upstream: Upstream
) -> None:
    async with harness(tmp_path, upstream) as service:
        one = await ready_or_result(service, "createPayment", {"amount": 5, "idempotency_key": "k-1"})
        two = await ready_or_result(service, "createPayment", {"amount": 5, "idempotency_key": "k-2"})
        none = await ready_or_result(service, "createPayment", {"amount": 5})
    assert isinstance(one, Ready) and isinstance(two, Ready) and isinstance(none, Ready)
    assert one.arguments["Idempotency-Key"] == one.bound["header.Idempotency-Key"] != "k-1"
    assert "Idempotency-Key" not in none.arguments
    assert len({one.fingerprint, two.fingerprint, none.fingerprint}) == 3
