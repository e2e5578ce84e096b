"""Rate limits (PRODUCT §5.2): which of `limits.per_client` and `limits.per_tool` a call meets, each from
the nearest place that sets it (the client's `clients.<id>.limits`, then the API's, then the top
level's), counted in the store (`Store.count_call`: all or none, atomic, shared by every instance on
it), and the refusal a call over one gets: `rate-limited`, with the seconds until the next call is
allowed. Nothing is sent then.

Every limit counts one caller's calls on one API: the client (or, for a token of no known client, its
`oauth:<client_id or sub>`), so two clients never use up each other's calls. Every call of a tool the
caller may use counts, whatever its arguments; a call refused as "unknown tool" does not.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass

from .._errors import ErrorCode
from .._json import dumps
from ..call import CallResult
from ..config import ApiConfig, ClientConfig, Rate, RateLimits
from ..store import RateLimit
from ..tools import Tool


@dataclass(frozen=True, slots=True)
class Applied:
    """One limit a call meets: the rate, where the config sets it, and its counter in the store."""

    rate: Rate
    where: str  # the config key, e.g. `clients.bot.limits.per_tool.refundOrder`
    counter: RateLimit
    tool: str | None  # the tool a per-tool limit counts; None for the caller's every call


def _key(*parts: str) -> str:
    return "rate:" + hashlib.sha256(dumps(list(parts)).encode()).hexdigest()[:40]


def _levels(top: RateLimits, api: ApiConfig, client: ClientConfig | None) -> list[tuple[str, RateLimits]]:
    """The places that may set a limit for this call, nearest first."""
    levels = [(f"apis.{api.name}.limits", api.rate_limits), ("limits", top)]
    if client is not None:
        levels.insert(0, (f"clients.{client.id}.limits", client.rate_limits))
    return levels


def limits_for(
    top: RateLimits, api: ApiConfig, client: ClientConfig | None, tool: Tool, who: str
) -> list[Applied]:
    """The limits a call of `tool` by `who` (the caller's name) meets; usually none, then the call costs
    nothing here."""
    levels = _levels(top, api, client)
    found = []
    for where, limits in levels:
        if limits.per_client is not None:
            rate = limits.per_client
            counter = RateLimit(_key("per_client", api.name, who), rate.calls, rate.window)
            found.append(Applied(rate, f"{where}.per_client", counter, None))
            break
    names = (tool.name, tool.default_name, tool.operation.operation_id or "")
    for where, limits in levels:
        name = next((name for name in names if name and name in limits.per_tool), None)
        if name is not None:
            rate = limits.per_tool[name]
            counter = RateLimit(_key("per_tool", api.name, who, tool.name), rate.calls, rate.window)
            found.append(Applied(rate, f"{where}.per_tool.{name}", counter, tool.name))
            break
    return found


def rate_limited(applied: Sequence[Applied], waits: Sequence[float]) -> CallResult:
    """The refusal of a call over one or more of `applied` (`waits`: each one's seconds until it has
    room): the limit, and when the next call is allowed (the longest wait, whole seconds up)."""
    over = [one for one, wait in zip(applied, waits, strict=True) if wait > 0]
    retry = max(1, math.ceil(max(waits)))
    said = "; ".join(
        f"at most {one.rate.calls} calls of {one.tool} per {_period(one.rate)}"
        if one.tool is not None
        else f"at most {one.rate.calls} calls per {_period(one.rate)} on this API"
        for one in over
    )
    return CallResult(
        f"too many calls: this client may make {said}; nothing was sent. The next call is allowed in "
        f"{retry} s (retry_after: {retry}).",
        is_error=True,
        code=ErrorCode.RATE_LIMITED,
    )


def _period(rate: Rate) -> str:
    period = rate.text.partition("/")[2]
    return period if period.isalpha() else f"{rate.window:g} s"
