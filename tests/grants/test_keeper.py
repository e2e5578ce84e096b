"""One token per slot, shared through the store (`grants/_keeper.py`), on SQLite, PostgreSQL and Redis:
many callers and several instances make one fetch; a restart, another instance or an expiry behave as
a user of one token would expect; a stored record this gateway cannot read is fetched anew."""

from __future__ import annotations

import asyncio
import itertools

import anyio
import pytest

from specbridge.grants import GrantError
from specbridge.grants._keeper import Held, Keeper
from specbridge.grants._seal import Sealer
from specbridge.grants._tokens import Tokens
from specbridge.store import Store, open_store

NOW = 1_764_500_000.0
SLOT = "grant:shop:0123456789abcdef"
KEY = "k" * 44


class Endpoint:
    """A token endpoint stand-in counting its fetches (the real one: tests/grants/test_endpoint.py);
    `gate` holds each fetch until the test lets it go."""

    def __init__(self, clock: list[float]) -> None:
        self.fetches = 0
        self.clock = clock
        self.gate: asyncio.Event | None = None
        self.seen: list[Tokens | None] = []
        self._numbers = itertools.count(1)

    async def fetch(self, stored: Tokens | None) -> Tokens:
        self.fetches += 1
        self.seen.append(stored)
        if self.gate is not None:
            await self.gate.wait()
        return Tokens(f"token-{next(self._numbers)}", self.clock[0], self.clock[0] + 3600)


def keeper(clock: list[float], owner: str = "one") -> Keeper:
    return Keeper(owner, lambda: clock[0])


def keep(tokens: Tokens) -> float:
    return tokens.usable_until


async def held(keeper: Keeper, store: Store, endpoint: Endpoint, stale: bytes | None = None) -> Held:
    found = await keeper.held(store, lambda: Sealer(KEY), SLOT, endpoint.fetch, keep=keep, stale=stale)
    assert found is not None
    return found


async def test_fifty_callers_at_once_make_one_fetch_and_get_one_token(store: Store) -> None:
    clock = [NOW]
    endpoint, one = Endpoint(clock), keeper(clock)
    found = await asyncio.gather(*(held(one, store, endpoint) for _ in range(50)))
    assert endpoint.fetches == 1
    assert {item.tokens.access for item in found} == {"token-1"}


async def test_a_restarted_gateway_and_another_instance_use_the_stored_token(store_url: str) -> None:
    clock = [NOW]
    endpoint = Endpoint(clock)
    async with open_store(store_url) as first:
        await held(keeper(clock, "first"), first, endpoint)
    async with open_store(store_url) as again, open_store(store_url) as other:
        restarted = await held(keeper(clock, "again"), again, endpoint)
        elsewhere = await held(keeper(clock, "other"), other, endpoint)
    assert endpoint.fetches == 1
    assert restarted.tokens.access == elsewhere.tokens.access == "token-1"


async def test_two_instances_asking_at_once_make_one_fetch(store_url: str) -> None:
    clock = [NOW]
    endpoint = Endpoint(clock)
    endpoint.gate = asyncio.Event()
    async with open_store(store_url) as one, open_store(store_url) as two:
        first = asyncio.ensure_future(held(keeper(clock, "one"), one, endpoint))
        second = asyncio.ensure_future(held(keeper(clock, "two"), two, endpoint))
        with anyio.fail_after(10):
            while endpoint.fetches == 0:  # the first fetch began; the other instance finds the lock
                await asyncio.sleep(0)
        await anyio.wait_all_tasks_blocked()
        endpoint.gate.set()
        with anyio.fail_after(40):
            found = await asyncio.gather(first, second)
    assert endpoint.fetches == 1
    assert {item.tokens.access for item in found} == {"token-1"}


async def test_an_expired_token_is_fetched_again_once(store: Store) -> None:
    clock = [NOW]
    endpoint, one = Endpoint(clock), keeper(clock)
    await held(one, store, endpoint)
    clock[0] = NOW + 3600
    found = await asyncio.gather(*(held(one, store, endpoint) for _ in range(10)))
    assert endpoint.fetches == 2
    assert {item.tokens.access for item in found} == {"token-2"}


async def test_a_record_kept_past_its_use_is_handed_to_the_fetch_that_renews_it(store: Store) -> None:
    clock = [NOW]
    endpoint, one = Endpoint(clock), keeper(clock)
    with_refresh = Tokens("old-token", NOW, NOW + 3600, refresh="the-refresh-token")
    await store.put_sealed(SLOT, Sealer(KEY).seal(SLOT, with_refresh.data()), NOW + 86400, NOW)
    clock[0] = NOW + 3600
    found = await one.held(store, lambda: Sealer(KEY), SLOT, endpoint.fetch, keep=lambda tokens: NOW + 86400)
    assert found is not None and found.tokens.access == "token-1"
    assert endpoint.seen == [with_refresh]


async def test_a_refused_token_is_replaced_once_however_many_callers_were_refused(store: Store) -> None:
    clock = [NOW]
    endpoint, one = Endpoint(clock), keeper(clock)
    refused = await held(one, store, endpoint)
    found = await asyncio.gather(*(held(one, store, endpoint, stale=refused.blob) for _ in range(8)))
    assert endpoint.fetches == 2
    assert {item.tokens.access for item in found} == {"token-2"}
    assert (await held(one, store, endpoint)).tokens.access == "token-2"


async def test_a_failed_fetch_is_every_waiting_callers_refusal_and_the_next_call_tries_again(
    store: Store,
) -> None:
    clock = [NOW]
    endpoint, one = Endpoint(clock), keeper(clock)

    async def failing(stored: Tokens | None) -> Tokens:
        endpoint.fetches += 1
        raise GrantError("the token endpoint answered 503", status=503)

    results = await asyncio.gather(
        *(one.held(store, lambda: Sealer(KEY), SLOT, failing, keep=keep) for _ in range(5)),
        return_exceptions=True,
    )
    assert endpoint.fetches == 1 and all(isinstance(item, GrantError) for item in results)
    assert (await held(one, store, endpoint)).tokens.access == "token-1"  # the lock was given back


async def test_a_record_sealed_with_another_store_key_is_not_used_and_fetched_anew(
    store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    clock = [NOW]
    endpoint = Endpoint(clock)
    other = Tokens("someone-elses-token", NOW, NOW + 3600)
    await store.put_sealed(SLOT, Sealer("o" * 44).seal(SLOT, other.data()), NOW + 3600, NOW)
    found = await held(keeper(clock), store, endpoint)
    assert found.tokens.access == "token-1" and endpoint.fetches == 1
    warned = [r.fields for r in caplog.records if r.getMessage().startswith("a stored token cannot")]  # type: ignore[attr-defined]
    assert warned and warned[0] == {
        "slot": "grant:shop",
        "why": "it was sealed with another store_key than this gateway's",
    }


async def test_without_a_way_to_fetch_nothing_stored_is_nothing(store: Store) -> None:
    clock = [NOW]
    found = await keeper(clock).held(store, lambda: Sealer(KEY), SLOT, None, keep=keep)
    assert found is None
    missing = await keeper(clock).held(
        store, lambda: Sealer(KEY), SLOT, Endpoint(clock).fetch, keep=keep, missing=False
    )
    assert missing is None
