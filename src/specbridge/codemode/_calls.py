"""A script's `api.<name>(…)` as one call of the call service (service/), exactly as a tool call is:
admitted (the caller's tool access, its rate limits), planned, checked, resolved, approved, claimed,
sent once, stored and audited, the audit line naming the script (`Trail.script`). The call goes where
the caller's `Reach` says (`_reach`): the tool on its own API, with that API's every rule. What the
service answers goes back to the script, never to the model:

    a result                  the parsed answer (`CallResult.answer`; else its JSON object, else its
                              JSON text parsed, else the text), as the function's value
    approval-pending,         the script pauses: its snapshot is kept and the same call is made again
    call-pending              when it goes on, which attaches to the same approval or long call
    a tool the caller may     AttributeError, word for word what the sandbox says of a name `api` has
    not use                   not: a script cannot tell another client's tool from no tool
    any other error           RuntimeError("[code] message") where the script called
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from .._errors import ErrorCode
from ..access import Identity
from ..call import CallResult
from ..config import ClientConfig
from ..service import NOBODY, CallRequest, CallService, Deadline, Question, Trail
from ..store import Store
from ..tools import Tool
from ._names import Names
from ._reach import Reach
from ._sandbox import Pause, Raise, Reply, Return

Json = Any
PAUSES = (ErrorCode.APPROVAL_PENDING, ErrorCode.CALL_PENDING)
JSON_DEPTH = 64


@dataclass(frozen=True, slots=True)
class Context:
    """Who runs a script, and what its calls go through: the gateway hands this in for one tools/call."""

    service: CallService
    store: Callable[[], Awaitable[Store]]  # the gateway's store (paused scripts)
    client: ClientConfig | None
    identity: Identity | None
    reach: Reach  # what this caller may use of the code mode's tools, and where each call goes
    deadline: Deadline
    clock: Callable[[], float]

    @property
    def client_id(self) -> str | None:
        return self.client.id if self.client is not None else None


def unknown(name: str) -> Raise:
    return Raise("AttributeError", f"module 'api' has no attribute {name!r}", ErrorCode.TOOL_UNKNOWN)


class NotJson(ValueError):
    pass


def as_json(value: Any, depth: int = 0) -> Json:
    """A value from the script as JSON (tuples as lists); raises NotJson for anything else."""
    if depth > JSON_DEPTH:
        raise NotJson("nested too deep")
    if value is None or isinstance(value, str | bool | int | float):
        return value
    if isinstance(value, list | tuple):
        return [as_json(item, depth + 1) for item in value]
    if isinstance(value, dict):
        if not all(isinstance(key, str) for key in value):
            raise NotJson("an object's keys must be strings")
        return {key: as_json(item, depth + 1) for key, item in value.items()}
    raise NotJson(f"a {type(value).__name__} is not a JSON value")


def answer_of(result: CallResult) -> Json:
    """What the script's function returns for a successful call."""
    if result.answer is not None:
        return result.answer
    if result.structured is not None:
        return result.structured
    try:
        return orjson.loads(result.text)
    except orjson.JSONDecodeError:
        return result.text


@dataclass(slots=True)
class ServiceCalls:
    """The host of one script run: each call of `api` through the call service."""

    tools: Mapping[str, Tool]  # the code mode's tools by the names it serves
    names: Names
    context: Context
    script: str
    waiting: CallResult | None = None  # the pending result the script paused on
    approval: str | None = None
    tool: str = ""  # the served name of the call it paused on
    made: list[str] = field(default_factory=list)  # served tool names, in the order called

    async def call(self, name: str, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> Reply:
        tool_name = self.names.tool(name)
        tool = self.tools.get(tool_name) if tool_name is not None else None
        target = self.context.reach.target(tool) if tool is not None else None
        if tool is None or target is None:
            return unknown(name)
        if args:
            return Raise(
                "TypeError",
                f"api.{name}() takes keyword arguments only, as its signature says",
                ErrorCode.ARGUMENTS_INVALID,
            )
        try:
            arguments = as_json(dict(kwargs))
        except NotJson as error:
            return Raise("TypeError", f"api.{name}(): {error}", ErrorCode.ARGUMENTS_INVALID)
        context = self.context
        request = CallRequest(
            target.api,
            target.caller,
            target.tool,
            context.client,
            arguments,
            context.deadline,
            NOBODY,  # a script cannot stop for an elicitation: approvals are answered by an operator
            context.identity,
            trail=Trail(script=self.script),
        )
        self.made.append(tool.name)
        outcome = await context.service.call(request)
        if isinstance(outcome, Question):  # not asked (NOBODY); answered as if nobody answered in time
            outcome = await context.service.resume(outcome, None)
        if not outcome.is_error or (
            outcome.code is ErrorCode.ANSWER_SHORTENED and outcome.answer is not None
        ):
            return Return(answer_of(outcome))
        if outcome.code in PAUSES:
            self.waiting, self.approval, self.tool = outcome, request.trail.approval, tool.name
            return Pause()
        if outcome.code is ErrorCode.TOOL_UNKNOWN:  # the service's admit refused it
            return unknown(name)
        code = outcome.code or ErrorCode.GATEWAY_INTERNAL
        text = outcome.text if outcome.text.startswith(f"[{code}]") else f"[{code}] {outcome.text}"
        return Raise("RuntimeError", text[:4000], code)
