"""Where access rules meet a call (service/_access.py): `admit` first, before the arguments are read (the
caller's tool access, then its rate limits, counted in the store), and `audit` at the end, whatever it
is. The rules themselves: `_tool_access` (tests/service/test_tool_access.py) and `_rate_limits`."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from specbridge import ErrorCode
from specbridge.access import Identity, TokenClaims
from specbridge.call import CallResult
from specbridge.service import Asking, Question
from specbridge.service._access import allowed, audit
from tests.service._harness import ORDER, counted, harness
from tests.support.audit import audit_lines as lines
from tests.support.upstream import Gate, Upstream, json_response

CLIENTS = {
    "bot": {"key_sha256": "a" * 64, "apis": ["shop"]},
    "other": {"key_sha256": "b" * 64, "apis": ["shop"]},
}


@pytest.fixture(autouse=True)
def routes(upstream: Upstream) -> None:
    upstream.route("/shops/s1/orders", json_response({"id": "o1"}, status=201))
    upstream.route("/products/p1", json_response({"id": "p1", "name": "Mug"}))


def token(client_id: str | None = None, *scopes: str, subject: str = "user-7") -> TokenClaims:
    return TokenClaims("https://auth.example.com", subject, client_id, frozenset(scopes), frozenset(), None)


async def test_every_call_passes_tool_access_first_and_audit_at_its_end(
    tmp_path: Path, upstream: Upstream
) -> None:
    async with harness(tmp_path, upstream) as service:
        with counted(allowed, audit) as sent:
            done = await service.result("createOrder", ORDER)
        with counted(allowed, audit) as refused:
            bad = await service.result("createOrder", {**ORDER, "quantity": 0})
        with counted(allowed, audit) as malformed:
            key = await service.result("createOrder", {**ORDER, "idempotency_key": ""})
    assert done.structured == {"id": "o1"}
    assert sent == refused == malformed == {"allowed": 1, "audit": 1}
    assert bad.code is key.code is ErrorCode.ARGUMENTS_INVALID


async def test_a_tool_the_client_may_not_use_is_an_unknown_tool_whatever_its_arguments(
    tmp_path: Path, upstream: Upstream
) -> None:
    clients = {**CLIENTS, "bot": {**CLIENTS["bot"], "tools": {"shop": {"allow": ["get*"]}}}}
    async with harness(tmp_path, upstream, clients=clients) as service:
        refused = await service.result("createOrder", ORDER, client="bot")
        malformed = await service.result("createOrder", {"idempotency_key": "", "x": 1}, client="bot")
        allowed = await service.result("getProduct", {"id": "p1"}, client="bot")
        other = await service.result("createOrder", ORDER, client="other")
    assert refused.code is malformed.code is ErrorCode.TOOL_UNKNOWN
    assert refused.text == malformed.text == "unknown tool: 'createOrder'"
    assert allowed.structured == {"id": "p1", "name": "Mug"}
    assert other.structured == {"id": "o1"}
    assert [request.path for request in upstream.requests] == ["/products/p1", "/shops/s1/orders"]


async def test_a_tokens_scopes_give_it_the_tools_they_name_and_no_others(
    tmp_path: Path, upstream: Upstream
) -> None:
    oauth = {
        "issuer": "https://auth.example.com",
        "jwks_uri": "https://auth.example.com/jwks",
        "allow_unknown_clients": True,
        "scopes": {"shop:read": ["get*", "list*"], "shop:order": ["createOrder"]},
    }
    async with harness(tmp_path, upstream, api={"oauth": oauth}, clients=CLIENTS) as service:
        reader = Identity(None, "oauth:reader", token("reader", "shop:read"))
        buyer = Identity(None, "oauth:buyer", token("buyer", "shop:read", "shop:order"))
        bot = Identity(service.config.clients["bot"], "bot", token("bot"))
        read = await service.result("getProduct", {"id": "p1"}, identity=reader)
        refused = await service.result("createOrder", ORDER, identity=reader)
        bought = await service.result("createOrder", ORDER, identity=buyer)
        bots = await service.result("getProduct", {"id": "p1"}, identity=bot)  # a token with no scope
        keyed = await service.result("createOrder", ORDER, client="bot")  # the bot's key: no scopes apply
    assert read.structured is not None and bought.structured == keyed.structured == {"id": "o1"}
    assert refused.code is bots.code is ErrorCode.TOOL_UNKNOWN


async def test_over_a_rate_limit_a_call_is_refused_with_its_wait_and_nothing_is_sent(
    tmp_path: Path, upstream: Upstream, store_url: str
) -> None:
    async with harness(
        tmp_path, upstream, store_url, clients=CLIENTS, limits={"per_tool": {"createOrder": "2/hour"}}
    ) as service:
        sent = [await service.result("createOrder", ORDER, client="bot") for _ in range(2)]
        refused = await service.result("createOrder", ORDER, client="bot")
        other_tool = await service.result("getProduct", {"id": "p1"}, client="bot")
        other_client = await service.result("createOrder", ORDER, client="other")
    assert [result.structured for result in sent] == [{"id": "o1"}] * 2
    assert refused.code is ErrorCode.RATE_LIMITED
    assert "at most 2 calls of createOrder per hour" in refused.text
    assert "nothing was sent" in refused.text and "retry_after: 3600" in refused.text
    assert other_tool.structured is not None and other_client.structured == {"id": "o1"}
    assert [request.path for request in upstream.requests].count("/shops/s1/orders") == 3


async def test_the_nearest_place_that_sets_a_limit_decides_it(tmp_path: Path, upstream: Upstream) -> None:
    clients = {**CLIENTS, "bot": {**CLIENTS["bot"], "limits": {"per_client": "3/minute"}}}
    async with harness(
        tmp_path,
        upstream,
        clients=clients,
        limits={"per_client": "1/minute"},
        api={"limits": {"per_client": "2/minute"}},
    ) as service:
        bot = [(await service.result("getProduct", {"id": "p1"}, client="bot")).code for _ in range(4)]
        other = [(await service.result("getProduct", {"id": "p1"}, client="other")).code for _ in range(3)]
    assert bot == [None, None, None, ErrorCode.RATE_LIMITED]  # its own 3/minute
    assert other == [None, None, ErrorCode.RATE_LIMITED]  # the API's 2/minute over the top level's


async def test_an_unknown_tokens_calls_are_counted_by_its_subject_not_shared(
    tmp_path: Path, upstream: Upstream
) -> None:
    async with harness(tmp_path, upstream, limits={"per_client": "1/hour"}) as service:
        one = Identity(None, "oauth:one", token("one"))
        two = Identity(None, "oauth:two", token("two"))
        codes = [
            (await service.result("getProduct", {"id": "p1"}, identity=who)).code for who in (one, two, one)
        ]
    assert codes == [None, None, ErrorCode.RATE_LIMITED]


async def test_a_call_with_no_limit_key_or_approval_still_never_opens_the_store(
    tmp_path: Path, upstream: Upstream
) -> None:
    async with harness(
        tmp_path, upstream, clients=CLIENTS, limits={"per_tool": {"createOrder": "5/hour"}}
    ) as service:
        await service.result("getProduct", {"id": "p1"}, client="bot")
        assert service.ledger.store is None
        await service.result("createOrder", ORDER, client="bot")
        assert service.ledger.store is not None


async def test_a_limit_the_store_cannot_count_refuses_the_call_unsent(
    tmp_path: Path, upstream: Upstream
) -> None:
    async with harness(
        tmp_path, upstream, "redis://127.0.0.1:1/0?timeout=1", limits={"per_client": "5/hour"}
    ) as service:
        result = await service.result("getProduct", {"id": "p1"})
    assert result.code is ErrorCode.STORE_UNAVAILABLE
    assert upstream.requests == []


async def test_the_audit_log_has_one_line_per_call_whatever_its_end(
    tmp_path: Path, upstream: Upstream, audit_file: Path
) -> None:
    clients = {**CLIENTS, "bot": {**CLIENTS["bot"], "tools": {"shop": {"deny": ["putBlob"]}}}}
    async with harness(
        tmp_path,
        upstream,
        clients=clients,
        limits={"per_tool": {"getProduct": "1/hour"}},
        tools={"importOrders": {"requires_approval": True}},
        approvals={"wait": 0},
    ) as service:
        await service.result("createOrder", {**ORDER, "idempotency_key": "k-1"}, client="bot")
        await service.result("createOrder", {**ORDER, "idempotency_key": "k-1"}, client="bot")  # replayed
        await service.result("createOrder", {**ORDER, "quantity": 0}, client="bot")
        await service.result("putBlob", {"name": "b", "body": "x"}, client="bot")  # denied
        await service.result("getProduct", {"id": "p1"}, client="bot")
        await service.result("getProduct", {"id": "p1"}, client="bot")  # over its limit
        pending = await service.result("importOrders", {"orders": []}, client="bot")
    found = lines(audit_file)
    assert [(line["tool"], line["outcome"], line["status"], line["idempotency_hit"]) for line in found] == [
        ("createOrder", "ok", 201, False),
        ("createOrder", "ok", 201, True),
        ("createOrder", "arguments-invalid", None, False),
        ("putBlob", "tool-unknown", None, False),
        ("getProduct", "ok", 200, False),
        ("getProduct", "rate-limited", None, False),
        ("importOrders", "approval-pending", None, False),
    ]
    assert found[3]["refused_by"] == "clients.bot.tools.shop.deny"
    assert found[5]["refused_by"] == "limits.per_tool.getProduct"
    assert found[6]["approval"] is not None and found[6]["approval"] in pending.text
    for line in found:
        assert line["client"] == "bot" and line["api"] == "shop" and line["subject"] is None
        assert line["ms"] >= 0 and line["instance"] and line["time"].endswith("Z")
        assert line["event"] == "tool call"


async def test_the_question_to_the_clients_user_and_its_answer_are_both_audited(
    tmp_path: Path, upstream: Upstream, audit_file: Path
) -> None:
    async with harness(
        tmp_path, upstream, tools={"createOrder": {"requires_approval": True}}, approvals={"by": "client"}
    ) as service:
        asked = await service.call("createOrder", ORDER, asking=Asking(can_ask=True))
        assert isinstance(asked, Question)
        answered = await service.service.resume(asked, "accept")
    assert answered.structured == {"id": "o1"}
    first, answer, second = lines(audit_file)
    assert (first["outcome"], second["outcome"]) == ("question", "ok")
    assert first["approval"] == second["approval"] == asked.approval
    # the user's answer is a line of its own, as an operator's is: who, what, how
    assert {key: answer[key] for key in ("event", "answer", "by", "via", "approval", "status")} == {
        "event": "approval answered",
        "answer": "approve",
        "by": "client:anonymous",
        "via": "client",
        "approval": asked.approval,
        "status": "approved",
    }


async def test_a_call_cut_off_by_the_deadline_is_audited_as_a_gateway_timeout(
    tmp_path: Path, upstream: Upstream, audit_file: Path
) -> None:
    gate = Gate()
    upstream.route("/slow", gate.reply({}))
    async with harness(tmp_path, upstream) as service:
        with anyio.move_on_after(20) as scope:
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(service.call, "slowThing", {})
                await anyio.to_thread.run_sync(gate.arrived.wait, 20)
                tasks.cancel_scope.cancel()  # what the gateway's deadline does
        gate.open.set()
    assert not scope.cancelled_caught
    (line,) = lines(audit_file)
    assert line["outcome"] == "gateway-timeout" and line["tool"] == "slowThing"


async def test_no_argument_value_answer_or_secret_reaches_the_audit_log(
    tmp_path: Path, upstream: Upstream, audit_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SHOP_SECRET", "secret-value-4711")
    upstream.route("/payments", json_response({"card": "answer-value-0815"}))
    async with harness(
        tmp_path, upstream, auth={"type": "bearer", "secret": "env:SHOP_SECRET"}, clients=CLIENTS
    ) as service:
        for key in ("key-value-1234", "key-value-1234"):
            result = await service.result(
                "createPayment",
                {"amount": 7, "note": "argument-value-9999", "idempotency_key": key},
                client="bot",
            )
            assert isinstance(result, CallResult) and "answer-value-0815" in result.text
    text = audit_file.read_text(encoding="utf-8")
    assert len(lines(audit_file)) == 2
    for value in ("argument-value-9999", "answer-value-0815", "secret-value-4711", "key-value-1234"):
        assert value not in text, value
