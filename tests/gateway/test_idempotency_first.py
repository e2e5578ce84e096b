"""A long call with an idempotency key stores its own result and `call.completed` before the key's
claim stores the result (`Idempotency.run(first=…)`), on a real store: a gateway killed between the two
leaves the key outcome unknown (never re-sent), never a stored result whose event is lost."""

from __future__ import annotations

import time
from pathlib import Path

from specbridge.call import CallResult
from specbridge.service._idempotency import Idempotency, store_key
from specbridge.store import ClaimState, open_store

SCOPE = ("shop", "bot", "createOrder")


async def test_a_fresh_result_reaches_first_while_the_key_is_still_held_and_a_stored_one_never_does(
    tmp_path: Path,
) -> None:
    sent: list[int] = []
    seen: list[tuple[str, ClaimState | None]] = []

    async def send() -> CallResult:
        sent.append(1)
        return CallResult('{"id": "o1"}', status=201)

    async with open_store(f"sqlite:///{tmp_path / 'state.db'}") as store:

        async def first(result: CallResult) -> None:
            claim = await store.get_claim(store_key(SCOPE, "k-1"), time.time())
            seen.append((result.text, None if claim is None else claim.state))

        idempotency = Idempotency(store, owner="me")
        fresh = await idempotency.run(SCOPE, "k-1", {"n": 1}, send, ttl=60, budget=1, first=first)
        again = await idempotency.run(SCOPE, "k-1", {"n": 1}, send, ttl=60, budget=1, first=first)
        kept = await store.get_claim(store_key(SCOPE, "k-1"), time.time())

    assert seen == [('{"id": "o1"}', ClaimState.HELD)]  # once, before the key stored it
    assert fresh.text == again.text == '{"id": "o1"}' and sent == [1]
    assert kept is not None and kept.state is ClaimState.DONE
