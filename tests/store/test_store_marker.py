"""The store's own guarantees on SQLite, PostgreSQL and Redis alike: the marker a gateway writes when it
opens the store (`Store.mark`), the check before a claim that must happen once (`Store.hold_once`), an
operator's acknowledgement, and the persistence settings read from the store (`Store.guarantees`)."""

from __future__ import annotations

import pytest
import redis.asyncio as aioredis

from specbridge.store import ANY, Marker, MarkerKind, Store, StoreLost, open_store, persistence_warning
from tests.support.stores import REDIS

NOW = 1_764_500_000.25


async def test_the_first_gateway_writes_the_marker_and_later_ones_adopt_it(store_url: str) -> None:
    async with open_store(store_url) as first, open_store(store_url) as second:
        marked = await first.mark(NOW)
        assert (await second.mark(NOW + 1)).id == marked.id
        assert marked.kind is MarkerKind.STARTED
        assert await second.read_marker() == marked


async def test_once_holds_while_the_marker_is_there(store: Store) -> None:
    await store.mark(NOW)
    await store.hold_once(NOW + 1)
    await store.hold_once(NOW + 2)


async def test_a_store_never_marked_by_this_instance_is_not_checked(store: Store) -> None:
    await store.hold_once(NOW)  # a command (store check, approvals) never marks
    assert await store.read_marker() is None


async def test_another_gateways_first_marker_means_the_store_was_emptied_and_every_gateway_refuses(
    store_url: str,
) -> None:
    async with open_store(store_url) as old, open_store(store_url) as late:
        await old.mark(NOW)
        await old.write_marker(Marker.new(MarkerKind.STARTED, NOW + 5), replace=ANY)  # as after a wipe
        await late.mark(NOW + 6)  # a gateway started on the emptied store: finds that marker
        await late.hold_once(NOW + 7)
        with pytest.raises(StoreLost, match="store check"):
            await old.hold_once(NOW + 8)
        assert (await old.read_marker()).kind is MarkerKind.LOST  # type: ignore[union-attr]
        with pytest.raises(StoreLost):
            await late.hold_once(NOW + 9)  # it refuses too, from now on
        with pytest.raises(StoreLost):
            await old.hold_once(NOW + 10)


async def test_an_acknowledgement_lets_every_gateway_go_on(store_url: str) -> None:
    async with open_store(store_url) as one, open_store(store_url) as two, open_store(store_url) as cli:
        await one.mark(NOW)
        await two.mark(NOW)
        await cli.write_marker(Marker.new(MarkerKind.LOST, NOW + 1), replace=ANY)
        for gateway in (one, two):
            with pytest.raises(StoreLost):
                await gateway.hold_once(NOW + 2)
        acknowledged = await cli.write_marker(Marker.new(MarkerKind.ACKNOWLEDGED, NOW + 3), replace=ANY)
        await one.hold_once(NOW + 4)
        await two.hold_once(NOW + 4)
        assert one.watch is not None and one.watch.marker == acknowledged


async def test_a_gateway_that_opens_a_store_marked_lost_refuses_from_the_start(store_url: str) -> None:
    async with open_store(store_url) as cli, open_store(store_url) as gateway:
        await cli.write_marker(Marker.new(MarkerKind.LOST, NOW), replace=None)
        assert (await gateway.mark(NOW + 1)).kind is MarkerKind.LOST
        with pytest.raises(StoreLost):
            await gateway.hold_once(NOW + 2)


async def test_a_conditional_write_replaces_only_the_marker_it_names(store: Store) -> None:
    first = await store.write_marker(Marker.new(MarkerKind.STARTED, NOW), replace=None)
    assert await store.write_marker(Marker.new(MarkerKind.STARTED, NOW), replace=None) == first
    assert await store.write_marker(Marker.new(MarkerKind.LOST, NOW), replace="someone-else") == first
    lost = Marker.new(MarkerKind.LOST, NOW + 1)
    assert await store.write_marker(lost, replace=first.id) == lost


async def test_the_store_reports_its_backend_schema_and_persistence(store: Store) -> None:
    found = await store.guarantees()
    assert found.backend in ("sqlite", "postgresql", "redis")
    assert found.schema >= 1
    assert found.durable is not None or found.note
    assert found.settings or found.durable is None


async def test_a_redis_whose_marker_vanished_is_found_lost(namespaces: object) -> None:
    """A Redis restarted without persistence: the marker key is simply gone."""
    prefix = f"marker_{id(namespaces)}"
    async with open_store(f"{REDIS}?namespace={prefix}") as gateway:
        try:
            await gateway.mark(NOW)
            client = aioredis.Redis.from_url(REDIS)
            await client.delete(f"{prefix}:marker")
            await client.aclose()
            with pytest.raises(StoreLost, match="lost its data"):
                await gateway.hold_once(NOW + 1)
            assert (await gateway.read_marker()).kind is MarkerKind.LOST  # type: ignore[union-attr]
        finally:
            client = aioredis.Redis.from_url(REDIS)
            await client.delete(f"{prefix}:marker", f"{prefix}:schema_version")
            await client.aclose()


def test_the_start_warning_names_what_may_happen_twice() -> None:
    from specbridge.store import Guarantees

    none = Guarantees("redis", 3, (("appendonly", "no"), ("save", "")), False)
    said = persistence_warning("redis://h:6379", none)
    assert said is not None
    assert "idempotency key" in said and "approved calls" in said and "long calls" in said
    assert "appendonly 'no'" in said
    unknown = persistence_warning("redis://h", Guarantees("redis", 3, (), None, "CONFIG GET is not allowed"))
    assert unknown is not None and "could not check" in unknown
    assert persistence_warning("x", Guarantees("redis", 3, (("appendonly", "yes"),), True)) is None
