"""Every client operation and every upstream request of a scenario across the three instances, and the
ledger's promise checked on that history (issue 30), as the service's state machine checks it in one
process (tests/service/test_ledger_machine.py):

- each logical call reaches the API at most once: a keyed `createOrder` (each key has a shop of its
  own here, so the request's path names the call) and an approval's `refundOrder` (each order asked
  once: its path names it) are requested at most once;
- no answer says "nothing was sent" for a call the API had already been sent when it was given;
- no answer carries the API's result for a call the API had not been sent when it was given.

    history = History(cluster.upstream)
    results = await history.load(url, calls)        # as `_cluster.load`, each answer recorded
    history.check()                                 # raises AssertionError naming the operation
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio
import mcp_types as types

from tests.cluster._cluster import agent, code, text
from tests.support.upstream import Upstream

Call = tuple[str, dict[str, Any]]


@dataclass(frozen=True, slots=True)
class Operation:
    """One tool call as its client saw it: what it asked, what it was told, and how many upstream
    requests had arrived (across every instance) when the answer came."""

    tool: str
    arguments: dict[str, Any]
    code: str | None
    text: str
    status: bool  # the answer carries the API's result (a success, or the API's error status)
    seen: int


def path_of(tool: str, arguments: dict[str, Any]) -> str | None:
    """The upstream path a call of the fixture API goes to (what names its logical call here)."""
    if tool == "createOrder":
        return f"/shops/{arguments['shopId']}/orders"
    if tool == "refundOrder":
        return f"/refunds/{arguments['orderId']}"
    return None


@dataclass
class History:
    upstream: Upstream
    operations: list[Operation] = field(default_factory=list)

    def record(self, tool: str, arguments: dict[str, Any], result: types.CallToolResult) -> None:
        said = code(result)
        answered = not result.is_error or said in ("upstream-status", "upstream-redirect")
        self.operations.append(
            Operation(tool, arguments, said, text(result), answered, len(self.upstream.requests))
        )

    async def load(self, url: str, calls: Sequence[Call], *, clients: int = 8) -> list[types.CallToolResult]:
        """`calls` made by `clients` SDK clients at once, by turns (as `_cluster.load`), each recorded."""
        results: list[types.CallToolResult | None] = [None] * len(calls)

        async def worker(first: int) -> None:
            async with agent(url) as client:
                for index in range(first, len(calls), clients):
                    tool, arguments = calls[index]
                    results[index] = result = await client.call_tool(tool, arguments)
                    self.record(tool, arguments, result)

        with anyio.fail_after(150):
            async with anyio.create_task_group() as tasks:
                for first in range(min(clients, len(calls))):
                    tasks.start_soon(worker, first)
        return [result for result in results if result is not None]

    def check(self) -> None:
        requests = [request.path for request in list(self.upstream.requests)]  # before the history too
        paths = {path_of(one.tool, one.arguments) for one in self.operations} - {None}
        for path in paths:
            assert requests.count(path) <= 1, f"{path} reached the API {requests.count(path)} times"
        for one in self.operations:
            path = path_of(one.tool, one.arguments)
            if path is None:
                continue
            before = requests[: one.seen].count(path)
            if "nothing was sent" in one.text.lower():
                assert before == 0, f"told nothing was sent after {path} was sent: {one.text[:200]}"
            if one.status:
                assert before == 1, f"given a result of {path} before it was sent: {one.text[:200]}"
