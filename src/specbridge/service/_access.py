"""Where the access rules of PRODUCT §5.2 meet a call: steps of the call service's line, so they hold for
every call whatever the transport (the adapter only lets a client in for an API, and leaves out of its
listings what `_tool_access` would refuse).

    allowed(request)                           first, before the arguments are read: the tool must be
                                               one the caller may use (else "unknown tool", as for a
                                               tool that does not exist)
    await admit(request, limits, store, now)   after the ledger's look-up, for a call it found new
                                               only: every rate limit it meets must have room (else
                                               `rate-limited`; the store is opened only when a limit
                                               applies)
    audit(request, outcome)                    after the call ended, whatever its end: one line of the
                                               audit log (`_audit`), names and outcomes only
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from .._audit import audit_event, auditing
from .._errors import ErrorCode
from .._logging import log_event, monotonic
from ..call import CallResult
from ..config import RateLimits
from ..store import Store, StoreError
from ._rate_limits import limits_for, rate_limited
from ._request import CallRequest, Question
from ._results import store_unavailable
from ._tool_access import tool_rules, unknown_tool

OpenStore = Callable[[], Awaitable[Store | CallResult]]


def allowed(request: CallRequest) -> CallResult | None:
    """Whether this caller may use this tool: None, or the refusal "unknown tool" (as for a tool that
    does not exist; nothing sent). The first step of every call, before its arguments are read."""
    denied = tool_rules(request.api, request.client, request.scopes).denial(request.tool)
    if denied is None:
        return None
    request.trail.refused_by = denied
    log_event("tool refused by the client's rules", api=request.api.name, client=request.who, rule=denied)
    return unknown_tool(request.tool.name)


def limited(request: CallRequest, limits: RateLimits) -> bool:
    """Whether any rate limit applies to this call (then it needs the store)."""
    return bool(limits_for(limits, request.api, request.client, request.tool, request.who))


async def admit(request: CallRequest, limits: RateLimits, store: OpenStore, now: float) -> CallResult | None:
    """Whether the rate limits this call meets have room, counted once: None, or the refusal (nothing
    sent). Only for a call the ledger found new: one that attaches to an approval, a running call or
    a stored result sends nothing new and is never counted. `limits`: the top level's; `store`: opens
    the store (or says why it cannot)."""
    applied = limits_for(limits, request.api, request.client, request.tool, request.who)
    if not applied:
        return None
    opened = await store()
    if isinstance(opened, CallResult):
        return opened
    try:
        waits = await opened.count_call([one.counter for one in applied], now)
    except StoreError as error:
        return store_unavailable(error, alone=True)
    if not any(waits):
        return None
    request.trail.refused_by = ", ".join(one.where for one, wait in zip(applied, waits, strict=True) if wait)
    log_event(
        "rate limited",
        api=request.api.name,
        tool=request.tool.name,
        client=request.who,
        limit=request.trail.refused_by,
    )
    return rate_limited(applied, waits)


def audit(
    request: CallRequest, outcome: CallResult | Question | ErrorCode, *, background: bool = False
) -> None:
    """One line for the call that ended with `outcome` (a code alone: cut off by the gateway's deadline,
    or a fault): who, what, how it ended, how long it took; never argument values, answers or secrets."""
    if not auditing():
        return
    trail, token = request.trail, request.identity.token if request.identity is not None else None
    fields: dict[str, object] = {
        "client": request.who or None,
        "subject": token.subject if token is not None else None,
        "api": request.api.name,
        "tool": request.tool.name,
        "approval": outcome.approval if isinstance(outcome, Question) else trail.approval,
        "idempotency_hit": trail.replayed,
        "outcome": _outcome(outcome),
        "status": outcome.status if isinstance(outcome, CallResult) else None,
        "ms": round((monotonic() - trail.started) * 1000, 1),
    }
    if trail.refused_by is not None:
        fields["refused_by"] = trail.refused_by
    if trail.script is not None:
        fields["script"] = trail.script
    if background:
        fields["background"] = True
    audit_event("tool call", **fields)


def _outcome(outcome: CallResult | Question | ErrorCode) -> str:
    if isinstance(outcome, ErrorCode):
        return str(outcome)
    if isinstance(outcome, Question):
        return "question"
    if not outcome.is_error:
        return "ok"
    return str(outcome.code) if outcome.code is not None else "gateway-internal"
