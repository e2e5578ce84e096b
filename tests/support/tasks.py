"""The Tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) on the official SDK client: the SDK 2.3
ships the means (`ClientExtension`, `ResultClaim` for a `resultType` of an extension, `send_request` with
`Mcp-Name` taken from a request's `name_param`), not the extension itself, so its client side is written
here from the extension's schema, independently of the gateway's models: a `CreateTaskResult` claimed,
then `tasks/get` until the task is terminal, and `tasks/cancel`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import anyio
import mcp_types as types
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp.client.session import ClientSession

TASKS = "io.modelcontextprotocol/tasks"
TERMINAL = ("completed", "failed", "cancelled")


class CreateTaskResult(types.Result):
    result_type: Literal["task"] = "task"
    task_id: str
    status: str
    status_message: str | None = None
    created_at: str
    last_updated_at: str
    ttl_ms: int | None
    poll_interval_ms: int | None = None


class TaskParams(types.RequestParams):
    task_id: str


class GetTaskRequest(types.Request[TaskParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    name_param = "taskId"  # SEP-2663: `Mcp-Name` carries the task id, for routing


class CancelTaskRequest(types.Request[TaskParams, Literal["tasks/cancel"]]):
    method: Literal["tasks/cancel"] = "tasks/cancel"
    name_param = "taskId"


class GetTaskResult(types.Result):
    task_id: str
    status: str
    status_message: str | None = None
    created_at: str
    last_updated_at: str
    ttl_ms: int | None
    poll_interval_ms: int | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None


async def get_task(session: ClientSession, task_id: str) -> GetTaskResult:
    return await session.send_request(GetTaskRequest(params=TaskParams(task_id=task_id)), GetTaskResult)


async def cancel_task(session: ClientSession, task_id: str) -> types.Result:
    return await session.send_request(CancelTaskRequest(params=TaskParams(task_id=task_id)), types.Result)


class Tasks(ClientExtension):
    """Declares the extension; a task a call answers with is followed to its end (`follow`), or handed
    back as its id in the text of an error result (`follow=False`, for a test that reads the task elsewhere). Every
    task created and every poll's status are kept, in order."""

    identifier = TASKS

    def __init__(self, *, follow: bool = True) -> None:
        self.follow = follow
        self.created: list[CreateTaskResult] = []
        self.polled: list[str] = []
        self.polling = anyio.Event()

    def claims(self) -> Sequence[ResultClaim[Any]]:
        return [ResultClaim(result_type="task", model=CreateTaskResult, resolve=self._resolve)]

    async def _resolve(self, created: CreateTaskResult, ctx: ClaimContext) -> types.CallToolResult:
        self.created.append(created)
        if not self.follow:
            # an error result: the SDK checks a success against the tool's outputSchema, not this
            return types.CallToolResult(content=[types.TextContent(text=created.task_id)], is_error=True)
        while True:
            task = await get_task(ctx.session, created.task_id)
            self.polled.append(task.status)
            self.polling.set()
            if task.status in TERMINAL:
                assert task.status == "completed" and task.result is not None, task
                return types.CallToolResult.model_validate(task.result)
            await anyio.sleep((task.poll_interval_ms or 1000) / 1000)  # as the task asks: the protocol's pace
