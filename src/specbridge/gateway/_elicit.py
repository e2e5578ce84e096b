"""`approvals.by: client`, the MCP side: the call service's `Question` (service/) put to the client's
own user. The approval is a record on the store like any other; the service decides when to ask, keeps
the answer as the user's (`client:<id>`), and sends the call once after a yes. Here only the asking:

    asking(...)        what the service may do with this request's client: ask it (it declared
                       `elicitation`), and the answer a 2026-07-28 retry carries (`inputResponses`)
    input_required(q)  2026-07-28: the call answers `input_required` with the question; the client asks
                       its user and retries the identical call with the answer, which attaches to the
                       same open approval (the store is the state: no `requestState`, and another
                       instance may take the retry)
    ask_user(...)      handshake era: an `elicitation/create` during the call, waiting for the choice
                       until the question's wait ends or someone answers elsewhere

A client that did not declare `elicitation`, an elicitation that fails or is not answered in time: the
approval stays pending for the operator, as with `by: operator`.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import mcp_types as types
from mcp.server.session import ServerSession
from mcp.shared.exceptions import MCPError
from pydantic import ValidationError

from .._errors import ErrorCode
from .._logging import log_event, monotonic
from ..service import Answer, Asking, Question

# An empty form: the user's choice is the answer (accept / decline / cancel), nothing to fill in.
CONFIRM_SCHEMA: types.ElicitRequestedSchema = {"type": "object", "properties": {}}
ANSWER_KEY = "approval"  # the key of the question in an input_required result, and of its answer


def declared(session: ServerSession) -> bool:
    capabilities = session.client_capabilities
    return capabilities is not None and capabilities.elicitation is not None


def channel(session: ServerSession, request_id: types.RequestId | None) -> types.RequestId | None:
    """Handshake era: where to send the elicitation: on the request's own stream (its id), or on the
    session's standalone stream (None: the gateway answers POSTs with one JSON body, so over Streamable
    HTTP the question rides the client's GET stream)."""
    return request_id if session.can_send_request and request_id is not None else None


def asking(session: ServerSession, responses: types.InputResponses | None, **fields: Any) -> Asking:
    """Whether the service may ask this request's client's user, and the answer the request carries.
    A carried answer that is not an elicitation's leaves the approval to the operator (logged)."""
    if not declared(session):
        return Asking()
    response = (responses or {}).get(ANSWER_KEY)
    if response is None:
        return Asking(can_ask=True)
    if isinstance(response, types.ElicitResult):
        return Asking(can_ask=True, answer=response.action)
    _failed(type(response).__name__, **fields)
    return Asking()


def input_required(question: Question) -> types.InputRequiredResult:
    elicit = types.ElicitRequestFormParams(message=question.text, requested_schema=CONFIRM_SCHEMA)
    return types.InputRequiredResult(input_requests={ANSWER_KEY: types.ElicitRequest(params=elicit)})


async def ask_user(
    session: ServerSession,
    request_id: types.RequestId | None,
    question: Question,
    answered_elsewhere: Callable[[Question], Awaitable[None]],
) -> Answer | None:
    """The user's choice, or None: not in time, answered elsewhere first (an operator, another try),
    or the elicitation failed (logged)."""
    wait = question.until - monotonic()
    if wait <= 0:
        return None
    answer: types.ElicitResult | None = None
    failed: Exception | None = None
    with anyio.move_on_after(wait):
        async with anyio.create_task_group() as racing:

            async def elsewhere() -> None:
                await answered_elsewhere(question)
                racing.cancel_scope.cancel()

            racing.start_soon(elsewhere)
            try:
                answer = await session.elicit_form(
                    question.text, CONFIRM_SCHEMA, related_request_id=channel(session, request_id)
                )
            except (MCPError, ValidationError) as error:
                failed = error
            racing.cancel_scope.cancel()
    if failed is not None:
        request = question.ready.request
        _failed(
            type(failed).__name__,
            approval=question.approval,
            api=request.api.name,
            tool=request.tool.name,
            client=request.client_id,
        )
    return answer.action if answer is not None else None


def _failed(error: str, **fields: Any) -> None:
    log_event(
        "asking the client's user failed; the approval waits for the operator",
        level=logging.WARNING,
        code=str(ErrorCode.APPROVAL_ASK_FAILED),
        error=error,
        **fields,
    )
