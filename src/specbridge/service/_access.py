"""Where the access rules of PRODUCT §5.2 meet a call: steps of the call service's line, so they hold for
every call whatever the transport (the adapter only lets a client in for an API).

    admit(planned)           before the arguments are read: per-client tool access, rate limits
    audit(request, outcome)  after the call ended, whatever its end: the audit line

Today neither refuses nor writes anything; they are the places, not the rules.
"""

from __future__ import annotations

from ..call import CallResult
from ._request import CallRequest, Planned, Question


def admit(planned: Planned) -> CallResult | None:
    """Whether this client may make this call now: None, or the refusal (a result, nothing sent)."""
    return None


def audit(request: CallRequest, outcome: CallResult | Question) -> None:
    """One line for the call that ended with `outcome` (never argument values or secrets)."""
