"""`Store.list_approvals` and `Store.approval_groups` on PostgreSQL (`_listing`): one pooled connection,
the counts and the oldest read in one repeatable-read transaction, so they agree."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any

from ._listing import FIRST, ClientApprovals, Page, group_counts, group_oldest, grouped, listed
from ._model import Approval, Status
from ._parts import PostgresPart
from ._records import approval_from

P = "%s"


class PostgresListing(PostgresPart):
    if TYPE_CHECKING:

        def _connection(self) -> AbstractAsyncContextManager[Any]: ...

    async def list_approvals(
        self, status: Status | None = None, limit: int = 100, page: Page = FIRST
    ) -> list[Approval]:
        statement, params = listed(P, None if status is None else str(status), limit, page)
        async with self._connection() as conn:
            cursor = await conn.execute(statement.encode(), params)
            return [approval_from(row) for row in await cursor.fetchall()]

    async def approval_groups(self, status: Status, per_client: int) -> list[ClientApprovals]:
        async with self._connection() as conn, conn.transaction():
            await conn.execute(b"SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            found = await (await conn.execute(group_counts(P).encode(), (str(status),))).fetchall()
            rows = await (await conn.execute(group_oldest(P).encode(), (str(status), per_client))).fetchall()
        counts = [(str(row["client"]), int(row["count"]), float(row["oldest_at"])) for row in found]
        return grouped(counts, [approval_from(row) for row in rows])
