"""The values a call passes along (service/_request.py): whose call it is, for keys, files and secrets."""

from __future__ import annotations

from pathlib import Path

from specbridge.access import key_sha256
from tests.service.conftest import ORDER, harness
from tests.support.upstream import Upstream


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
