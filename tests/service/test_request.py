"""The values a call passes along (service/_request.py): whose call it is, for keys, approvals, long calls,
files and secrets (a token of no known client by its subject: issue 31, item 5)."""

from __future__ import annotations

from pathlib import Path

from specbridge import ErrorCode
from specbridge.access import Identity, TokenClaims, key_sha256
from specbridge.store import Status
from tests.service._harness import ORDER, harness
from tests.support.upstream import Upstream, json_response


async def test_a_request_knows_whose_call_it_is(tmp_path: Path, upstream: Upstream) -> None:
    clients = {
        "bot": {
            "key_sha256": key_sha256("sbk_bot-key"),
            "apis": ["shop"],
            "bindings": {"shop": {"path.shopId": "s1"}},
        }
    }
    async with harness(tmp_path, upstream, clients=clients) as service:
        theirs = service.request("createOrder", ORDER, client="bot")
        anyone = service.request("createOrder", ORDER)
    assert (theirs.scope, theirs.owner, theirs.client_id) == (("shop", "bot", "createOrder"), "bot", "bot")
    assert theirs.bindings == {"path.shopId": "s1"} and theirs.secret_id is None
    assert (anyone.scope, anyone.owner, anyone.bindings) == (("shop", "", "createOrder"), "-", None)


def token(subject: str | None, client_id: str = "shared-app") -> TokenClaims:
    return TokenClaims("https://auth.example.com", subject, client_id, frozenset(), frozenset(), None)


async def test_holders_of_unknown_client_tokens_are_told_apart_by_subject_for_keys_and_approvals(
    tmp_path: Path, upstream: Upstream
) -> None:
    upstream.route("/shops/s1/orders", json_response({"id": "o1"}, status=201))
    oauth = {"issuer": "https://auth.example.com", "jwks_uri": "https://auth.example.com/jwks",
             "allow_unknown_clients": True}  # fmt: skip
    tools = {"createPayment": {"requires_approval": True}}
    async with harness(
        tmp_path, upstream, api={"oauth": oauth}, tools=tools, approvals={"wait": 0}
    ) as service:
        alice, bob = (Identity(None, "oauth:shared-app", token(who)) for who in ("alice", "bob"))
        keyed = {**ORDER, "idempotency_key": "same-key"}
        orders = [await service.result("createOrder", keyed, identity=who) for who in (alice, bob, alice)]
        pending = [await service.result("createPayment", {"amount": 5}, identity=who) for who in (alice, bob)]
        asked = await service.ledger.current().desk.list(Status.PENDING)
        request = service.request("createOrder", ORDER, identity=alice)
        nameless = service.request("createOrder", ORDER, identity=Identity(None, "oauth:app", token(None)))
    assert [result.structured for result in orders] == [{"id": "o1"}] * 3
    assert len(upstream.requests) == 2  # alice's once, bob's once: not bob getting alice's result
    assert pending[0].code is pending[1].code is ErrorCode.APPROVAL_PENDING
    assert sorted(approval.client for approval in asked) == ["oauth:alice", "oauth:bob"]
    assert (request.scope, request.owner) == (("shop", "oauth:alice", "createOrder"), "oauth:alice")
    assert nameless.principal == "oauth:app"  # no subject: the token's client, as its name says
