"""The Tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) for 2026-07-28 clients that declare it
on a request: a call the gateway would answer `call-pending` (a long call still running, `calls.long`) or
`approval-pending` (waiting for a person, `approvals.send: on_answer`) becomes a task instead, on the same
store record `get_call_result` reads (the task id is that call or approval id, with its creation time).
`tasks/get` reads it without waiting; `tasks/cancel` is acknowledged and says truthfully what it cannot
do; `tasks/update` has nothing to answer (the gateway asks a client's user before a task exists, by the
2026 `input_required` round trip, never during one). Clients without the extension keep `call-pending`
and `get_call_result`.

A task id is `<call or approval id>.<creation time in ms, hex>`: the id is the record's (unguessable, the
caller's own: another client's reads as unknown), the time only what `createdAt` reports.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, Literal

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from .._errors import ErrorCode
from .._logging import monotonic
from ..call import CallResult
from ..config import ApiConfig, ClientConfig
from ..service import CallService, Deadline

TASKS = "io.modelcontextprotocol/tasks"
POLL_MS = 1000
CANCEL_META = "specbridge/cancel"
_TASK_ID = re.compile(r"([0-9a-f]{32})\.([0-9a-f]{1,12})")
_PENDING = (ErrorCode.CALL_PENDING, ErrorCode.APPROVAL_PENDING)
Status = Literal["working", "input_required", "completed", "failed", "cancelled"]
View = Callable[[ServerRequestContext[Any, Any]], tuple[ApiConfig, ClientConfig | None]]
Answer = Callable[[ServerRequestContext[Any, Any], CallResult], types.CallToolResult]


class CreateTaskResult(types.Result):
    """`resultType: "task"`: the task handle a `tools/call` answers with (flat: Result & Task)."""

    result_type: Literal["task"] = "task"
    task_id: str
    status: Status
    status_message: str | None = None
    created_at: str
    last_updated_at: str
    ttl_ms: int | None
    poll_interval_ms: int | None = None


class TaskParams(types.RequestParams):
    task_id: str


class UpdateTaskParams(TaskParams):
    input_responses: dict[str, Any] | None = None


def declared(ctx: ServerRequestContext[Any, Any]) -> bool:
    """Whether this request's client declared the extension (2026-07-28 per-request capabilities)."""
    if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
        return False
    capabilities = ctx.session.client_capabilities
    extensions = capabilities.extensions if capabilities is not None else None
    return extensions is not None and TASKS in extensions


def _iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _working(result: CallResult) -> str:
    if result.code is ErrorCode.APPROVAL_PENDING:
        return f"waiting for a person's approval (approval {result.handle}); nothing is sent before it"
    return "running: its request was sent once, and the API's answer is not in yet"


def _ttl_ms(api: ApiConfig, result: CallResult) -> int:
    seconds = api.approvals.expire if result.code is ErrorCode.APPROVAL_PENDING else api.idempotency.ttl
    return int(seconds * 1000)


def as_task(result: CallResult, api: ApiConfig) -> CreateTaskResult | None:
    """The task a pending call becomes (None: the call is not pending, or has no id to follow)."""
    if result.code not in _PENDING or result.handle is None:
        return None
    now = time.time()
    return CreateTaskResult(
        task_id=f"{result.handle}.{int(now * 1000):x}",
        status="working",
        status_message=_working(result),
        created_at=_iso(now),
        last_updated_at=_iso(now),
        ttl_ms=_ttl_ms(api, result),
        poll_interval_ms=POLL_MS,
    )


class TaskMethods:
    """`tasks/get`, `tasks/update` and `tasks/cancel` of one API, on the call service's records."""

    def __init__(self, calls: CallService, view: View, answer: Answer) -> None:
        self._calls = calls
        self._view = view
        self._answer = answer

    def serve(self, server: Server[Any]) -> None:
        server.extensions[TASKS] = {}
        server.add_request_handler("tasks/get", TaskParams, self.get)
        server.add_request_handler("tasks/update", UpdateTaskParams, self.update)
        server.add_request_handler("tasks/cancel", TaskParams, self.cancel)

    async def _read(
        self, ctx: ServerRequestContext[Any, Any], task_id: str
    ) -> tuple[CallResult, float, ApiConfig]:
        """The task's record as it is now (no wait); -32602 `call-not-found` for an id that is no task
        of this caller's."""
        found = _TASK_ID.fullmatch(task_id)
        api, client = self._view(ctx)
        result = None
        if found is not None:
            arguments = {"call_id": found.group(1)}
            result = await self._calls.result(
                api, client.id if client else None, arguments, Deadline(monotonic())
            )
        if result is None or result.code in (ErrorCode.CALL_NOT_FOUND, ErrorCode.ARGUMENTS_INVALID):
            raise MCPError(
                types.INVALID_PARAMS,
                f"no task {task_id[:80]!r} of yours is known here",
                data={"code": str(ErrorCode.CALL_NOT_FOUND)},
            )
        if result.code is ErrorCode.STORE_UNAVAILABLE and result.status is None:
            raise MCPError(
                types.INTERNAL_ERROR,
                "the gateway's store cannot be reached now; ask again later",
                data={"code": str(ErrorCode.STORE_UNAVAILABLE)},
            )
        assert found is not None
        return result, int(found.group(2), 16) / 1000, api

    async def get(self, ctx: ServerRequestContext[Any, Any], params: TaskParams) -> dict[str, Any]:
        result, created, api = await self._read(ctx, params.task_id)
        task: dict[str, Any] = {
            "taskId": params.task_id,
            "createdAt": _iso(created),
            "pollIntervalMs": POLL_MS,
        }
        if result.code in _PENDING:
            return {
                **task,
                "status": "working",
                "statusMessage": _working(result),
                "lastUpdatedAt": _iso(created),
                "ttlMs": _ttl_ms(api, result),
            }
        answered = self._answer(ctx, result).model_dump(mode="json", by_alias=True, exclude_none=True)
        return {
            **task,
            "status": "completed",  # an error result is a completed task too; failed is for JSON-RPC errors
            "lastUpdatedAt": _iso(time.time()),  # when the gateway read its outcome
            "ttlMs": int(api.idempotency.ttl * 1000),
            "result": answered,
        }

    async def update(self, ctx: ServerRequestContext[Any, Any], params: UpdateTaskParams) -> dict[str, Any]:
        """Nothing to take: a task of this gateway never waits for its client's input."""
        await self._read(ctx, params.task_id)
        return {}

    async def cancel(self, ctx: ServerRequestContext[Any, Any], params: TaskParams) -> dict[str, Any]:
        """Acknowledged, as the extension wants, and said for what it is: the gateway does not stop a
        call it took. A request already sent cannot be unsent; a pending approval stays for a person."""
        result, _, _ = await self._read(ctx, params.task_id)
        if result.code is ErrorCode.APPROVAL_PENDING:
            said = (
                "not cancelled: the approval stays for a person to answer or expire; nothing is sent "
                "unless a person approves it"
            )
        elif result.code is ErrorCode.CALL_PENDING:
            said = (
                "not cancelled: the request was already sent to the API once and cannot be unsent; the "
                "task completes with the API's answer"
            )
        else:
            said = "not cancelled: the task had already completed"
        return {"_meta": {CANCEL_META: said}}
