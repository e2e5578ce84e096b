"""`approvals.by: client`: the MCP client's own user answers the approval, through an elicitation.

The approval is still a record on the store (the same one the operator flow uses), so the answer is
kept with who gave it (`client:<id>`), announced by the webhook like any other, and the call is then
sent once by `ApprovalGate.call` exactly as after an operator's answer. Only the question changes:

    ApiServer.call_tool   remember the request (`asking`), answer `InputNeeded` with its result
    ApiServer._call       await ask_client(gate, ...)  # before gate.call; answers the approval or not
    gate.call             attaches to the same approval: approved → sent once; rejected → the reason

Handshake era: the gateway sends `elicitation/create` during the call and waits (up to `approvals.wait`)
for the user's choice. 2026-07-28: the call answers `input_required` with the question; the client asks
its user and retries the identical call with the answer, which attaches to the same open approval (the
store is the state, so no `requestState` is needed, and another gateway instance may take the retry).
A client that did not declare `elicitation`, an elicitation that fails or is not answered in time: the
approval stays pending for the operator, as with `by: operator`.
"""

from __future__ import annotations

import contextvars
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import anyio
import mcp_types as types
from mcp.server.session import ServerSession
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError

from .._errors import ErrorCode
from .._json import dumps
from .._logging import log_event
from ..approvals import ApprovalError, Approvals
from ..service import SEND_MARGIN, ApprovalGate
from ..store import Approval, Status

Json = Any
MAX_SHOWN = 4000  # characters of arguments / bound values put in front of the user
# An empty form: the user's choice is the answer (accept / decline / cancel), nothing to fill in.
CONFIRM_SCHEMA: types.ElicitRequestedSchema = {"type": "object", "properties": {}}

ANSWER_KEY = "approval"  # the key of the question in an input_required result, and of its answer


@dataclass(frozen=True, slots=True)
class Asking:
    """The tools/call being served: its session, id and (2026-07-28) the input responses it carries."""

    session: ServerSession
    request_id: types.RequestId | None
    responses: types.InputResponses | None = None


asking: contextvars.ContextVar[Asking | None] = contextvars.ContextVar("specbridge.asking", default=None)


class InputNeeded(Exception):
    """2026-07-28: this call's answer is an `input_required` result that asks the client's user."""

    def __init__(self, result: types.InputRequiredResult) -> None:
        super().__init__("input required")
        self.result = result


def declared(session: ServerSession) -> bool:
    capabilities = session.client_capabilities
    return capabilities is not None and capabilities.elicitation is not None


def channel(session: ServerSession, request_id: types.RequestId | None) -> types.RequestId | None:
    """Handshake era: where to send the elicitation: on the request's own stream (its id), or on the
    session's standalone stream (None: the gateway answers POSTs with one JSON body, so over Streamable
    HTTP the question rides the client's GET stream)."""
    return request_id if session.can_send_request and request_id is not None else None


def _shown(values: Mapping[str, Json]) -> str:
    text = dumps(dict(values)) if values else "(none)"
    return text if len(text) <= MAX_SHOWN else text[:MAX_SHOWN] + " …(cut)"


def question(api: str, tool: str, arguments: Mapping[str, Json], bound: Mapping[str, Json]) -> str:
    """What the user reads: the tool, what the model asked for, and apart from it what the gateway adds."""
    return (
        f"The assistant wants to call {tool} on {api}, which needs your approval before anything is "
        f"sent.\nArguments from the assistant: {_shown(arguments)}\n"
        f"Values the gateway adds (the assistant did not choose them): {_shown(bound)}\n"
        "Accept to send this call once; decline to refuse it."
    )


async def ask_client(
    gate: ApprovalGate,
    api: str,
    tool: str,
    client: str | None,
    arguments: Mapping[str, Json],
    bound: Mapping[str, Json],
    *,
    budget: float | None,
    send_timeout: float,
) -> None:
    """Where `approvals.by` is `client` and the requesting client can elicit: store (or attach to) the
    pending approval, ask the client's user, and answer the approval with what they chose. Returns
    without answering in every other case; `gate.call` then finds the approval as it stands."""
    approvals = gate.desk.for_api(api)
    current = asking.get()
    if approvals.settings.by != "client" or current is None or not declared(current.session):
        return
    approval = await approvals.request(api, tool, client or "", arguments, bound)
    if approval.status is not Status.PENDING:
        return
    if current.session.protocol_version in MODERN_PROTOCOL_VERSIONS:
        response = (current.responses or {}).get(ANSWER_KEY)
        if response is None:
            elicit = types.ElicitRequestFormParams(
                message=question(api, tool, arguments, bound), requested_schema=CONFIRM_SCHEMA
            )
            needed = types.InputRequiredResult(
                input_requests={ANSWER_KEY: types.ElicitRequest(params=elicit)}
            )
            raise InputNeeded(needed)
        if not isinstance(response, types.ElicitResult):
            _failed(api, tool, client, approval, type(response).__name__)
            return
        await _answer(approvals, approval, client, response, api=api, tool=tool)
        return
    wait = approvals.settings.wait
    if budget is not None:
        wait = max(0.0, min(wait, budget - send_timeout - SEND_MARGIN))
    if wait <= 0:
        return
    answer: types.ElicitResult | None = None
    failed: Exception | None = None
    with anyio.move_on_after(wait):
        async with anyio.create_task_group() as racing:

            async def answered_elsewhere() -> None:
                # An operator (or the user through another call) may answer first: stop asking then.
                await approvals.wait(approval.id, wait)
                racing.cancel_scope.cancel()

            racing.start_soon(answered_elsewhere)
            try:
                answer = await current.session.elicit_form(
                    question(api, tool, arguments, bound),
                    CONFIRM_SCHEMA,
                    related_request_id=channel(current.session, current.request_id),
                )
            except (MCPError, ValidationError) as error:
                failed = error
            racing.cancel_scope.cancel()
    if failed is not None:
        _failed(api, tool, client, approval, type(failed).__name__)
    elif answer is not None:  # else answered elsewhere, or not in time: `gate.call` finds it as it stands
        await _answer(approvals, approval, client, answer, api=api, tool=tool)


def _failed(api: str, tool: str, client: str | None, approval: Approval, error: str) -> None:
    log_event(
        "asking the client's user failed; the approval waits for the operator",
        level=logging.WARNING,
        code=str(ErrorCode.APPROVAL_ASK_FAILED),
        api=api,
        tool=tool,
        client=client,
        approval=approval.id,
        error=error,
    )


async def _answer(
    approvals: Approvals,
    approval: Approval,
    client: str | None,
    answer: types.ElicitResult,
    *,
    api: str,
    tool: str,
) -> None:
    by = f"client:{client or 'anonymous'}"
    try:
        if answer.action == "accept":
            await approvals.approve(approval.id, by)
        else:
            what = "declined" if answer.action == "decline" else "dismissed without answering"
            await approvals.reject(approval.id, by, f"the client's user {what} the call")
    except ApprovalError:  # answered meanwhile (by the operator, or another try): that answer stands
        return
    log_event(
        "approval answered by the client's user", api=api, tool=tool, client=client, action=answer.action
    )
