"""`Store.list_approvals` and `Store.approval_groups` on SQLite (`_listing`): read on the store's thread."""

from __future__ import annotations

import sqlite3

from ._listing import FIRST, ClientApprovals, Page, group_counts, group_oldest, grouped, listed
from ._model import Approval, Status
from ._parts import SqlitePart
from ._records import approval_from

P = "?"


class SqliteListing(SqlitePart):
    async def list_approvals(
        self, status: Status | None = None, limit: int = 100, page: Page = FIRST
    ) -> list[Approval]:
        statement, params = listed(P, None if status is None else str(status), limit, page)

        def work(db: sqlite3.Connection) -> list[Approval]:
            return [approval_from(row) for row in db.execute(statement, params).fetchall()]

        return await self._run(work)

    async def approval_groups(self, status: Status, per_client: int) -> list[ClientApprovals]:
        def work(db: sqlite3.Connection) -> list[ClientApprovals]:
            counts = [
                (str(row["client"]), int(row["count"]), float(row["oldest_at"]))
                for row in db.execute(group_counts(P), (str(status),)).fetchall()
            ]
            rows = db.execute(group_oldest(P), (str(status), per_client)).fetchall()
            return grouped(counts, [approval_from(row) for row in rows])

        return await self._run(work)
