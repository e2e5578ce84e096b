"""Listing approvals (`store/_listing.py`) on SQLite, PostgreSQL and Redis alike: pages that reach every
record once, a client's own pages, and every client's count and oldest whatever another client does."""

from __future__ import annotations

import secrets

from specbridge.store import Approval, Cursor, Page, Status, Store

NOW = 1_764_500_000.25


def approval(client: str, at: float, number: int) -> Approval:
    return Approval(
        id=secrets.token_hex(16),
        api="shop",
        tool="refundOrder",
        client=client,
        arguments={"n": number},
        bound={},
        fingerprint=f"{client}-{number}",
        status=Status.PENDING,
        created_at=at,
        expires_at=NOW + 86_400,
    )


async def made(store: Store, client: str, count: int, *, start: float, ties: int = 1) -> list[Approval]:
    """`count` pending approvals of `client`, `ties` of them to each creation time."""
    records = []
    for number in range(count):
        record = approval(client, start + number // ties, number)
        records.append((await store.attach_or_create(record, NOW))[0])
    return records


def newest_first(records: list[Approval]) -> list[str]:
    return [record.id for record in sorted(records, key=lambda r: (r.created_at, r.id), reverse=True)]


async def pages(store: Store, size: int, **options: object) -> list[list[str]]:
    found: list[list[str]] = []
    after = None
    while True:
        page = await store.list_approvals(Status.PENDING, size, Page(after=after, **options))  # type: ignore[arg-type]
        if not page:
            return found
        found.append([record.id for record in page])
        after = Cursor.after(page[-1])


async def test_pages_reach_every_approval_once_in_order_ties_included(store: Store) -> None:
    records = await made(store, "a", 9, start=NOW, ties=3) + await made(store, "b", 8, start=NOW, ties=4)
    newest = await pages(store, 4)
    assert [approval_id for page in newest for approval_id in page] == newest_first(records)
    assert [len(page) for page in newest] == [4, 4, 4, 4, 1]
    oldest = await pages(store, 5, oldest_first=True)
    assert [approval_id for page in oldest for approval_id in page] == newest_first(records)[::-1]


async def test_a_clients_own_pages_hold_that_clients_approvals_only(store: Store) -> None:
    theirs = await made(store, "b", 3, start=NOW)
    await made(store, "a", 40, start=NOW + 1)
    found = await pages(store, 2, client="b")
    assert [approval_id for page in found for approval_id in page] == newest_first(theirs)
    no_key = await made(store, "", 2, start=NOW + 100)  # an approval of a call that came with no client key
    theirs_only = await store.list_approvals(Status.PENDING, 100, Page(client=""))
    assert [r.id for r in theirs_only] == newest_first(no_key)


async def test_one_clients_flood_never_hides_anothers_older_pending_approval(store: Store) -> None:
    # The review: one client's 1,010 approvals hid another's older one behind the 1,000 newest.
    older = await made(store, "quiet", 1, start=NOW)
    flood = await made(store, "busy", 120, start=NOW + 1)
    late = await made(store, "late", 2, start=NOW + 500)
    groups = await store.approval_groups(Status.PENDING, 10)
    assert [(group.client, group.count) for group in groups] == [("quiet", 1), ("busy", 120), ("late", 2)]
    assert [record.id for record in groups[0].oldest] == [older[0].id]
    assert [record.id for record in groups[1].oldest] == [record.id for record in flood[:10]]
    assert [record.id for record in groups[2].oldest] == [record.id for record in late]
    assert groups[0].oldest_at == NOW
    assert await store.approval_groups(Status.REJECTED, 10) == []


def test_a_cursor_is_read_back_as_it_was_written_and_nothing_else() -> None:
    cursor = Cursor(NOW + 0.1, "ab" * 16)
    assert Cursor.parse(cursor.text()) == cursor
    for text in ("", "1~", "x~ab", "1.5~AB", "inf~ab", "1~ab~cd", "-1~ab"):
        assert Cursor.parse(text) is None
