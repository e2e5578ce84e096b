"""Listing approvals so that every one is reachable whatever another client does (`Store.list_approvals`,
`Store.approval_groups`), and the SQL both SQL backends run for it.

- **Pages, not a cap.** A listing is newest first (or oldest first), `limit` at a time; the `Cursor` of a
  page's last record (its creation time and id, the listing's own order) starts the next page, so a
  client making thousands of approvals a minute cannot push an older one out of reach: it is a few
  pages on, and a `client` filter goes straight to one client's.
- **Groups per client.** `approval_groups` gives every client with approvals in a state, the one waiting
  longest first: how many it has and its oldest few. A page built from it counts every approval and
  shows each client's oldest, so a flood from one never hides another's.

Both read every approval in the state once at most (one indexed range on SQL, one pass of its sorted
set on Redis), the same as `expire_due` already does before each listing.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from ._model import Approval

_CURSOR = re.compile(r"([0-9]+(?:\.[0-9]+)?(?:e[+-]?[0-9]+)?)~([0-9a-f]{1,64})")


@dataclass(frozen=True, slots=True)
class Cursor:
    """Where a page of a listing ended: the creation time and id of its last record."""

    created_at: float
    id: str

    @classmethod
    def after(cls, approval: Approval) -> Cursor:
        return cls(approval.created_at, approval.id)

    def text(self) -> str:
        """The cursor as a caller hands it back (`--after`, `?after=`)."""
        return f"{self.created_at!r}~{self.id}"

    @classmethod
    def parse(cls, text: str) -> Cursor | None:
        """A cursor `text()` made; None for anything else."""
        found = _CURSOR.fullmatch(text.strip())
        if found is None:
            return None
        created_at = float(found.group(1))
        return cls(created_at, found.group(2)) if math.isfinite(created_at) else None


@dataclass(frozen=True, slots=True)
class Page:
    """Which page of a listing: one client's approvals only (`client`), past which record (`after`, the
    `Cursor` of the previous page's last one), and which way (newest first, or `oldest_first`)."""

    client: str | None = None
    after: Cursor | None = None
    oldest_first: bool = False


FIRST = Page()  # the first page of every approval, newest first


@dataclass(frozen=True, slots=True)
class ClientApprovals:
    """One client's approvals in a state: how many, the oldest creation time, and the oldest few."""

    client: str
    count: int
    oldest_at: float
    oldest: tuple[Approval, ...]


def listed(p: str, status: str | None, limit: int, page: Page) -> tuple[str, tuple[object, ...]]:
    """One page of a listing on SQL (`p`: the driver's placeholder), and its parameters: its filters,
    then past the cursor in the listing's order."""
    where = [] if status is None else [f"status = {p}"]
    params: list[object] = [] if status is None else [status]
    if page.client is not None:
        where.append(f"client = {p}")
        params.append(page.client)
    if page.after is not None:
        beyond = ">" if page.oldest_first else "<"
        where.append(f"(created_at {beyond} {p} OR (created_at = {p} AND id {beyond} {p}))")
        params += [page.after.created_at, page.after.created_at, page.after.id]
    order = "created_at, id" if page.oldest_first else "created_at DESC, id DESC"
    condition = f"WHERE {' AND '.join(where)} " if where else ""
    return f"SELECT * FROM approvals {condition}ORDER BY {order} LIMIT {p}", (*params, limit)


def group_counts(p: str) -> str:
    return (
        f"SELECT client, COUNT(*) AS count, MIN(created_at) AS oldest_at FROM approvals WHERE status = {p} "
        "GROUP BY client ORDER BY MIN(created_at), client"
    )


def group_oldest(p: str) -> str:
    """Each client's `per` oldest approvals in a state (a window over the state's one index range)."""
    return (
        "SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY client ORDER BY created_at, id) AS rank "
        f"FROM approvals WHERE status = {p}) AS ranked WHERE rank <= {p} ORDER BY created_at, id"
    )


def grouped(counts: list[tuple[str, int, float]], oldest: list[Approval]) -> list[ClientApprovals]:
    """The groups, in the order of `counts` (the longest wait first), each with its oldest approvals."""
    by_client: dict[str, list[Approval]] = {}
    for approval in oldest:
        by_client.setdefault(approval.client, []).append(approval)
    return [
        ClientApprovals(client, count, oldest_at, tuple(by_client.get(client, ())))
        for client, count, oldest_at in counts
    ]
