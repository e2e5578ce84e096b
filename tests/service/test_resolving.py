"""Check and resolve (service/_resolving.py): the arguments checked once (large ones off the event loop),
then, after the ledger's look-up, files, bindings and the caller's secret resolved into the one
request; whatever cannot be sent is a refusal here, naming the field, with nothing sent and every
claim given back."""

from __future__ import annotations

from pathlib import Path

import pytest

from specbridge import ErrorCode
from specbridge.call import CallResult, checked
from specbridge.service._planning import plan
from specbridge.service._request import Planned, Ready
from specbridge.service._resolving import check, resolve
from tests.service._harness import counted, harness
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
            assert not isinstance(found, CallResult) and found.arguments == arguments
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
    return await resolve(found, service.files)  # type: ignore[attr-defined]


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


async def test_a_secret_that_cannot_be_read_is_refused_and_the_key_the_look_up_took_is_free_again(
    tmp_path: Path, upstream: Upstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    upstream.route("/shops/s1/orders", json_response({"id": "o1"}, status=201))
    auth = {"type": "bearer", "secret": "env:SPECBRIDGE_TEST_SECRET_SET_LATER"}
    async with harness(tmp_path, upstream, auth=auth) as service:
        keyed = {"shopId": "s1", "product": "p", "quantity": 1, "idempotency_key": "k"}
        made = await service.result("createOrder", keyed)
        assert upstream.requests == []
        monkeypatch.setenv("SPECBRIDGE_TEST_SECRET_SET_LATER", "now-set")
        sent = await service.result("createOrder", keyed)
    assert made.code is ErrorCode.SECRET_UNAVAILABLE and "nothing was sent" in made.text
    assert sent.structured == {"id": "o1"} and len(upstream.requests) == 1


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


async def test_a_token_that_cannot_be_had_is_a_refusal_before_any_claim_and_the_key_stays_free(
    tmp_path: Path, upstream: Upstream, store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.support.oauth_api import STORE_KEY

    monkeypatch.setenv("SPECBRIDGE_TEST_STORE_KEY", STORE_KEY)
    monkeypatch.setenv("GW_SECRET", "gw-secret")
    answers = [json_response({"error": "temporarily_unavailable"}, status=503)]
    token = json_response({"access_token": "at-1", "token_type": "Bearer", "expires_in": 3600})
    upstream.route("/token", lambda request: answers[-1])
    upstream.route("/shops/s1/orders", json_response({"id": "o1"}, status=201))
    auth = {
        "type": "oauth2_client_credentials",
        "token_url": upstream.url + "/token",
        "client_id": "gw",
        "client_secret": "env:GW_SECRET",
    }
    order = {"shopId": "s1", "product": "p1", "quantity": 1, "idempotency_key": "order-1"}
    async with harness(
        tmp_path, upstream, store_url, auth=auth, store_key="env:SPECBRIDGE_TEST_STORE_KEY"
    ) as service:
        refused = await service.result("createOrder", order)
        answers.append(token)
        done = await service.result("createOrder", order)
    assert refused.code is ErrorCode.UPSTREAM_AUTH_FAILED and "answered 503" in refused.text
    assert "nothing was sent" in refused.text
    assert not done.is_error and done.structured == {"id": "o1"}  # the key was never claimed
    assert [r.path for r in upstream.requests if r.path.startswith("/shops")] == ["/shops/s1/orders"]
