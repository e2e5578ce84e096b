"""Step 1 of a call: what the config decides for it, looked up once, and the agent's idempotency key
taken out of its arguments."""

from __future__ import annotations

from ..call import CallResult
from ._idempotency import keyed
from ._request import CallRequest, Planned


def plan(request: CallRequest) -> Planned | CallResult:
    """The call's plan (`Caller.plan`: cached per tool and client bindings) and its key apart; an
    error result for a malformed key. With a key for the document's own key field, the plan is the
    one the listing serves (that field left out of the schema, as a binding), never one per key."""
    key = keyed(request.api, request.tool, request.scope, request.arguments, request.bindings)
    if isinstance(key, CallResult):
        return key
    return Planned(
        request, request.caller.plan(request.tool, key.bindings), key.arguments, key.key, key.binding
    )
